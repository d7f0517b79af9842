import fs from "node:fs";
import os from "node:os";
import { z } from "zod";
import { AtriumError } from "../errors";

const lockSchema = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  bindHost: z.string().nullable(),
  port: z.number().int().nullable(),
  startedAt: z.string(),
});
export type LockInfo = z.infer<typeof lockSchema>;

export interface HeldLock {
  info: LockInfo;
  release(): void;
  /** Rewrites the lock's details (the real port once listening); atomically, so readers never see half a file. */
  update(details: Partial<Pick<LockInfo, "bindHost" | "port">>): void;
}

/**
 * Takes runtime.lock by exclusive create (DESIGN §2). A live holder is refused by pid;
 * a stale lock from this host (dead pid) is taken over and logged; a lock written by
 * another host is never taken over.
 */
export function acquireLock(
  lockPath: string,
  details: { bindHost?: string | null; port?: number | null } = {},
  log: (message: string) => void = console.log,
): HeldLock {
  const info: LockInfo = {
    pid: process.pid,
    hostname: os.hostname(),
    bindHost: details.bindHost ?? null,
    port: details.port ?? null,
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = fs.openSync(lockPath, "wx", 0o600);
      fs.writeSync(handle, `${JSON.stringify(info)}\n`);
      fs.fsyncSync(handle);
      fs.closeSync(handle);
      return {
        info,
        release: () => releaseLock(lockPath, info),
        update: (details) => {
          Object.assign(info, details);
          const temporary = `${lockPath}.${process.pid}.tmp`;
          fs.writeFileSync(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600 });
          fs.renameSync(temporary, lockPath);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readLock(lockPath);
    if (holder === null) {
      // Unreadable lock content (a crash during its own write): treat as stale.
      log(`runtime.lock at ${lockPath} is unreadable; taking it over`);
      fs.rmSync(lockPath, { force: true });
      continue;
    }
    if (holder.hostname !== info.hostname) {
      throw new AtriumError(
        "lock_held",
        `${lockPath} was written by host ${holder.hostname} (pid ${holder.pid}). If no Atrium runs there on this data directory, remove the file by hand: rm ${lockPath}`,
      );
    }
    if (holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new AtriumError(
        "lock_held",
        `The data directory is in use by Atrium pid ${holder.pid} (started ${holder.startedAt}). Stop it first (atrium serve stop).`,
      );
    }
    log(`Taking over a stale runtime.lock left by pid ${holder.pid} (no longer running)`);
    fs.rmSync(lockPath, { force: true });
  }
  throw new AtriumError("lock_held", `Could not take ${lockPath}`);
}

export function readLock(lockPath: string): LockInfo | null {
  try {
    const parsed = lockSchema.safeParse(JSON.parse(fs.readFileSync(lockPath, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function releaseLock(lockPath: string, info: LockInfo): void {
  const current = readLock(lockPath);
  if (current && current.pid === info.pid && current.startedAt === info.startedAt) fs.rmSync(lockPath, { force: true });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
