import { createHash } from "node:crypto";
import fs from "node:fs";
import { absoluteBytes, type BytePath } from "./list-files";

/**
 * What a working directory looks like to `stat` alone, so that a snapshot of an unchanged
 * directory costs one walk instead of three git runs (issue 25):
 * - every directory git walks (all but `.git` and the directories it ignores whole), by its
 *   mtime, ctime and inode: a file added, removed or renamed anywhere changes one of them;
 * - every file the last snapshot took, by size, mtime, ctime, inode and mode: ctime also moves
 *   when a tool puts an mtime back;
 * - every ignore or attributes file in those directories, taken or not (one that ignores itself
 *   still decides what git takes). (The store's own info/exclude is compared by its text, see `exclude`.)
 * Paths are bytes (BytePath), so names that are not UTF-8 are stamped too. Two equal stamps mean
 * `git add -A` would find what it found, as git's own index decides by stat data. Null when the
 * walk passes `limit` entries, or when something changed so recently that a change in the same
 * clock tick could hide behind it ("racily clean", as git calls it).
 */
export interface StampPlan {
  /** The files the snapshot took, relative to the cwd. */
  files: readonly BytePath[];
  /** Directories git ignores whole (relative, no trailing slash): not walked. */
  ignoredDirectories: ReadonlySet<BytePath>;
  /** What the snapshot store's info/exclude said: a stamp stands only while it says the same. */
  exclude: string;
  limit: number;
}

/** A change within this long of the stamp is too close to tell apart from the stamp's own moment. */
const RACY_MS = 2000;
/** The files in a directory that change what git takes from it. */
const RULE_FILES = new Set([".gitignore", ".gitattributes"]);

export function statStamp(cwd: string, plan: StampPlan, nowMs: number): string | null {
  const hash = createHash("sha256");
  let entries = 0;
  let racy = false;
  const note = (kind: string, relative: BytePath) => {
    const stats = fs.lstatSync(absoluteBytes(cwd, relative), { bigint: true, throwIfNoEntry: false });
    if (!stats) return hash.update(`${kind}\0${relative}\0-\n`, "latin1");
    const changedMs = Number((stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs) / 1_000_000n);
    if (changedMs > nowMs - RACY_MS) racy = true;
    hash.update(`${kind}\0${relative}\0${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.mode}\n`, "latin1");
  };
  const pending: BytePath[] = [""];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    note("d", relative);
    let children: Array<fs.Dirent<Buffer>>;
    try {
      children = fs.readdirSync(absoluteBytes(cwd, relative), { withFileTypes: true, encoding: "buffer" });
    } catch {
      continue;
    }
    entries += children.length;
    if (entries > plan.limit) return null;
    for (const child of children) {
      const name = child.name.toString("latin1");
      const childPath = relative === "" ? name : `${relative}/${name}`;
      if (RULE_FILES.has(name) && !child.isDirectory()) note("r", childPath);
      if (!child.isDirectory() || name === ".git") continue;
      if (!plan.ignoredDirectories.has(childPath)) pending.push(childPath);
    }
  }
  for (const file of plan.files) note("f", file);
  return racy ? null : hash.digest("hex");
}
