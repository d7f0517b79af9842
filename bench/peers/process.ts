import type { ChildProcess } from "node:child_process";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { processTree } from "../model/proc";

/** The ports this harness may open (the machine is shared): a free one from PEERS_PORTS, default 3820–3899. */
const [FIRST_PORT, LAST_PORT] = (process.env.PEERS_PORTS ?? "3820-3899").split("-").map(Number);
let nextPort = FIRST_PORT;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function portInRange(): Promise<number> {
  for (let tried = 0; tried <= LAST_PORT - FIRST_PORT; tried += 1) {
    const port = nextPort;
    nextPort = port >= LAST_PORT ? FIRST_PORT : port + 1;
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${FIRST_PORT}–${LAST_PORT} (PEERS_PORTS)`);
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGKILL to the child and every process below it, as a crash or the OOM killer would. */
export async function killTree(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  for (const pid of processTree(child.pid).reverse()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await exited(child);
}

/** SIGTERM, then SIGKILL to the tree if it has not exited within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const done = exited(child);
  if ((await Promise.race([done.then(() => true), sleep(graceMs).then(() => false)])) === false) await killTree(child);
}

/**
 * Spawn → first 200 from `url`, asking every 10 ms without waiting for earlier asks (a server
 * may accept a connection early and answer it only once it is ready; each ask gives up after
 * 2 s, and at most 4 are open at once). Fails if the child exits first or after `timeoutMs`.
 */
export async function pollReady(url: string, child: ChildProcess, started: number, timeoutMs = 60_000): Promise<number> {
  let readyAt = Number.NaN;
  let open = 0;
  const ask = () => {
    open += 1;
    return fetch(url, { signal: AbortSignal.timeout(2_000) })
      .then(
        (response) => {
          if (response.ok && Number.isNaN(readyAt)) readyAt = performance.now();
          return response.body?.cancel();
        },
        () => {},
      )
      .finally(() => (open -= 1));
  };
  while (Number.isNaN(readyAt)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${url}: the server exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (performance.now() - started > timeoutMs) throw new Error(`${url}: not ready within ${timeoutMs} ms`);
    if (open < 4) void ask();
    await sleep(10);
  }
  return readyAt - started;
}
