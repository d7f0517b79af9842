import fs from "node:fs";
import os from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { isAlive, readLock } from "../store/lock";
import { dataPaths } from "../store/paths";
import type { CliContext } from "./cli-context";
import { EXIT_DONE, EXIT_FAILED } from "./exit-status";

/** DESIGN §11: `serve stop` waits up to 30 s for the server to exit. */
const STOP_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

/** `atrium serve stop`: signals the pid named in runtime.lock and waits for it to exit. */
export async function runServeStop(context: CliContext): Promise<number> {
  const lockPath = dataPaths(context.home).lock;
  const holder = readLock(lockPath);
  if (!holder) {
    const why = fs.existsSync(lockPath) ? `${lockPath} is unreadable` : `there is no ${lockPath}`;
    context.warn(`No Atrium server is running on ${context.home} (${why}).`);
    return EXIT_FAILED;
  }
  if (holder.hostname !== os.hostname()) {
    context.warn(`runtime.lock was written by host ${holder.hostname} (pid ${holder.pid}); stop that server there.`);
    return EXIT_FAILED;
  }
  if (!isAlive(holder.pid)) {
    context.warn(`No Atrium server is running on ${context.home} (runtime.lock names pid ${holder.pid}, which has exited).`);
    return EXIT_FAILED;
  }
  const where = holder.port === null ? "" : ` on ${holder.bindHost ?? "?"}:${holder.port}`;
  process.kill(holder.pid, "SIGTERM");
  context.print(`Sent SIGTERM to Atrium pid ${holder.pid}${where}; waiting for it to exit…`);
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(holder.pid)) {
    if (Date.now() >= deadline) {
      context.warn(`Atrium pid ${holder.pid} did not exit within ${STOP_TIMEOUT_MS / 1000} s.`);
      return EXIT_FAILED;
    }
    await delay(POLL_MS);
  }
  context.print(`Atrium pid ${holder.pid} stopped.`);
  return EXIT_DONE;
}
