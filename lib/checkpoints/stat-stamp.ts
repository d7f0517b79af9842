import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * What a working directory looks like to `stat` alone, so that a snapshot of an unchanged
 * directory costs one walk instead of three git runs (issue 25):
 * - every directory git walks (all but `.git` and the directories it ignores whole), by its
 *   mtime, ctime and inode: a file added, removed or renamed anywhere changes one of them;
 * - every file the last snapshot took, by size, mtime, ctime, inode and mode: ctime also moves
 *   when a tool puts an mtime back.
 * Two equal stamps mean `git add -A` would find what it found, as git's own index decides by
 * stat data. Null when the walk passes `limit` entries, or when something changed so recently
 * that a change in the same clock tick could hide behind it ("racily clean", as git calls it).
 */
export interface StampPlan {
  /** The files the snapshot took, relative to the cwd. */
  files: readonly string[];
  /** Directories git ignores whole (relative, no trailing slash): not walked. */
  ignoredDirectories: ReadonlySet<string>;
  limit: number;
}

/** A change within this long of the stamp is too close to tell apart from the stamp's own moment. */
const RACY_MS = 2000;

export function statStamp(cwd: string, plan: StampPlan, nowMs: number): string | null {
  const startedMs = nowMs;
  const hash = createHash("sha256");
  let entries = 0;
  let racy = false;
  const note = (kind: string, relative: string, stats: fs.BigIntStats | undefined) => {
    if (!stats) return hash.update(`${kind}\0${relative}\0-\n`);
    const changedMs = Number((stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs) / 1_000_000n);
    if (changedMs > startedMs - RACY_MS) racy = true;
    hash.update(`${kind}\0${relative}\0${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.mode}\n`);
  };
  const pending = [""];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    const absolute = relative === "" ? cwd : path.join(cwd, relative);
    note("d", relative, fs.lstatSync(absolute, { bigint: true, throwIfNoEntry: false }));
    let children: fs.Dirent[];
    try {
      children = fs.readdirSync(absolute, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += children.length;
    if (entries > plan.limit) return null;
    for (const child of children) {
      if (!child.isDirectory() || child.name === ".git") continue;
      const childPath = relative === "" ? child.name : `${relative}/${child.name}`;
      if (!plan.ignoredDirectories.has(childPath)) pending.push(childPath);
    }
  }
  for (const file of plan.files) note("f", file, fs.lstatSync(path.join(cwd, file), { bigint: true, throwIfNoEntry: false }));
  return racy ? null : hash.digest("hex");
}
