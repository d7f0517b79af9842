import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");
export const BENCH_TOKEN = "bench-token-0123456789-abcdefghijklmn";
const READY_TIMEOUT_MS = 120_000;

/** The node flags `npm start` runs bin/atrium.mjs with (package.json's "start"; the bin's shebang has the same). */
export function startFlags(): string[] {
  const scripts = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const words = scripts.start.split(/\s+/);
  return words.slice(words.indexOf("node") + 1, words.indexOf("bin/atrium.mjs"));
}

export interface BenchServer {
  url: string;
  /** Spawn → first `/api/health` 200, polled every 10 ms. */
  readyMs: number;
  child: ChildProcess;
  get(pathname: string): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The real server started as `npm start` starts it (bin/atrium.mjs serve: the bundle and the
 * production build `npm run build` makes; run it first) on a fixed free port against `home`,
 * with `npm start`'s node flags, timed from spawn until `/api/health` answers 200, which it does only once recovery is done. `nodeArgs` go to node before the script (e.g. `--cpu-prof`).
 */
export interface BenchServerOptions {
  nodeArgs?: string[];
  /** The node binary (default: the one running the bench) and extra environment, e.g. for a run on another Node. */
  node?: string;
  env?: Record<string, string>;
}

export async function startBenchServer(home: string, port: number, options: BenchServerOptions = {}): Promise<BenchServer> {
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // BENCH_SERVER_STDOUT=<file>: the server's stdout (e.g. --trace-gc) is appended there.
  const stdout = process.env.BENCH_SERVER_STDOUT ? fs.openSync(process.env.BENCH_SERVER_STDOUT, "a") : "ignore";
  const child = spawn(options.node ?? process.execPath, [...startFlags(), ...(options.nodeArgs ?? []), "bin/atrium.mjs", "serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...options.env, ATRIUM_HOME: home, ATRIUM_TOKEN: BENCH_TOKEN, NODE_ENV: "production" },
    stdio: ["ignore", stdout, "pipe"],
  });
  if (typeof stdout === "number") fs.closeSync(stdout);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const get = (pathname: string) => fetch(`${url}${pathname}`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  let readyMs = Number.NaN;
  while (Number.isNaN(readyMs)) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before ready:\n${stderr}`);
    if (performance.now() - started > READY_TIMEOUT_MS) {
      child.kill("SIGKILL");
      throw new Error(`server not ready within ${READY_TIMEOUT_MS} ms:\n${stderr}`);
    }
    const ok = await get("/api/health").then(
      (response) => response.ok,
      () => false,
    );
    if (ok) readyMs = performance.now() - started;
    else await sleep(10);
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    readyMs,
    child,
    get,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A port the OS says is free right now. */
export async function freePort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
