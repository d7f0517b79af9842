import crypto from "node:crypto";
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

/** An empty or unreadable lock may be a holder between its create and its write; only this old is it stale. */
export const UNREADABLE_LOCK_GRACE_MS = 5_000;

/**
 * Takes runtime.lock (DESIGN §2) atomically: the full content is written to a private temp
 * file, then hard-linked into place, which fails if the lock exists, so no reader ever sees
 * a lock without its content. A live holder is refused by pid; a stale lock from this host
 * (dead pid) is taken over and logged; a lock written by another host is never taken over.
 */
export function acquireLock(
  lockPath: string,
  details: { bindHost?: string | null; port?: number | null } = {},
  log: (message: string) => void = console.log,
  now: () => number = Date.now,
): HeldLock {
  const info: LockInfo = {
    pid: process.pid,
    hostname: os.hostname(),
    bindHost: details.bindHost ?? null,
    port: details.port ?? null,
    startedAt: new Date(now()).toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (linkNewLock(lockPath, info)) {
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
    }
    const holder = readLock(lockPath);
    if (holder === null) {
      const age = lockAge(lockPath, now);
      if (age === null) continue;
      if (age < UNREADABLE_LOCK_GRACE_MS) {
        throw new AtriumError("lock_held", `${lockPath} is being written by another Atrium starting up; try again in a few seconds.`);
      }
      log(`runtime.lock at ${lockPath} is unreadable and ${Math.round(age / 1000)} s old; taking it over`);
      removeIfUnchanged(lockPath, null);
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
    removeIfUnchanged(lockPath, holder);
  }
  throw new AtriumError("lock_held", `Could not take ${lockPath}: another Atrium is starting on this data directory`);
}

/** Write a temp file with the whole lock, fsync it, then link it in; false when a lock is there. */
function linkNewLock(lockPath: string, info: LockInfo): boolean {
  const temporary = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.new`;
  const handle = fs.openSync(temporary, "wx", 0o600);
  try {
    fs.writeSync(handle, `${JSON.stringify(info)}\n`);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  try {
    fs.linkSync(temporary, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

function lockAge(lockPath: string, now: () => number): number | null {
  try {
    return now() - fs.statSync(lockPath).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Moves the stale lock aside under a private name, then checks it was the one judged stale:
 * if another process took it over in between, its fresh lock is put back (link refuses to
 * clobber) and this process goes round again, to be refused by the new holder.
 */
function removeIfUnchanged(lockPath: string, judged: LockInfo | null): void {
  const aside = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.stale`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = readLock(aside);
  const same = judged === null ? moved === null : moved !== null && moved.pid === judged.pid && moved.startedAt === judged.startedAt;
  if (!same) {
    try {
      fs.linkSync(aside, lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  fs.rmSync(aside, { force: true });
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
