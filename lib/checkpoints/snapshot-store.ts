import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { AtriumError } from "../errors";
import { replaceFileExclusively } from "./exclusive-write";
import { git, gitText, type GitTarget } from "./git";
import { absoluteBytes, listFiles, listIgnoredDirectories } from "./list-files";
import { statStamp, type StampPlan } from "./stat-stamp";

/** Files over this size are never snapshotted (opencode and Claude Code skip large files too). */
export const MAX_SNAPSHOT_FILE_BYTES = 10 * 1024 * 1024;
/** A diff is for reading: past this it is cut at a line end (the file list still counts everything). */
export const MAX_DIFF_CHARACTERS = 1024 * 1024;

/** A working directory found too large is listed again only after this long. */
const TOO_LARGE_RECHECK_MS = 10 * 60 * 1000;

function tooLargeReason(cwd: string, maxFiles: number): string {
  return `the working directory ${cwd} has more than ${maxFiles} files (config snapshots.maxFiles)`;
}

export type SnapshotOutcome = { tree: string } | { off: string };

export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  additions: number;
  deletions: number;
}

/** Trees come from our own records; anything else never reaches git's argument list. */
export function isTreeId(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{40}$/.test(value);
}

/**
 * Checkpoints of working directories kept in a private git directory per cwd
 * (`$ATRIUM_HOME/snapshots/<cwd-hash>.git`), never the cwd's own `.git`.
 * Commands on one store run one at a time: they share its index file.
 */
export class SnapshotStore {
  private readonly queues = new Map<string, Promise<unknown>>();
  /**
   * A snapshot queued and not started yet, by store: a request made meanwhile takes it instead
   * of queueing one more, since it starts after that request too (turns starting together in
   * one cwd would otherwise wait for one git run each). Anything else queued ends the sharing.
   */
  private readonly queuedSnapshots = new Map<string, Promise<SnapshotOutcome>>();
  /** Working directories found over maxFiles, until when that answer stands. */
  private readonly tooLarge = new Map<string, number>();
  /** By store: the last tree written and the stat stamp of the files it was written from. */
  private readonly stamped = new Map<string, { tree: string; stamp: string; plan: StampPlan }>();
  /** Snapshots that ran git (the others found the directory unchanged by its stat stamp). */
  gitSnapshots = 0;

  constructor(
    private readonly root: string,
    private readonly maxFiles: number,
    /** Atrium's data directory: left out when a cwd contains it. */
    private readonly dataHome: string = path.dirname(root),
    /** The wall clock file times are compared with (see statStamp). */
    private readonly clock: () => number = Date.now,
  ) {}

  target(cwd: string): GitTarget {
    const hash = createHash("sha256").update(cwd).digest("hex").slice(0, 32);
    return { gitDir: path.join(this.root, `${hash}.git`), workTree: cwd };
  }

  /** Writes the cwd's current files as a tree, or says why checkpoints are off for it. */
  snapshot(cwd: string): Promise<SnapshotOutcome> {
    const key = this.target(cwd).gitDir;
    const queued = this.queuedSnapshots.get(key);
    if (queued) return queued;
    const snapshot: Promise<SnapshotOutcome> = this.serial(cwd, () => {
      if (this.queuedSnapshots.get(key) === snapshot) this.queuedSnapshots.delete(key);
      return this.writeTree(cwd).catch((error: unknown) => {
        if (isGitMissing(error)) return { off: "git is not installed on this machine" };
        throw error;
      });
    });
    this.queuedSnapshots.set(key, snapshot);
    return snapshot;
  }

  /** `context`: lines of context around each change in the diff (git's -U; default 3). */
  changes(cwd: string, from: string, to: string, context?: number): Promise<{ files: ChangedFile[]; diff: string }> {
    return this.serial(cwd, async () => {
      const target = this.target(cwd);
      const base = ["diff-tree", "-r", "--no-renames", "--no-ext-diff"];
      const [numstat, nameStatus, diff] = await Promise.all([
        gitText(target, [...base, "-z", "--numstat", from, to]),
        gitText(target, [...base, "-z", "--name-status", from, to]),
        gitText(target, [...base, "-p", "--no-color", ...(context === undefined ? [] : [`-U${context}`]), from, to]),
      ]);
      return { files: parseChanges(numstat, nameStatus), diff: capDiff(diff) };
    });
  }

  /** Whether this store holds every one of `trees` (written here for `cwd`): false when its git directory or any tree is missing. */
  async holdsTrees(cwd: string, trees: readonly string[]): Promise<boolean> {
    const target = this.target(cwd);
    if (!fs.existsSync(target.gitDir)) return false;
    // Run in the store, not in the cwd: a working directory deleted since does not make its snapshots missing.
    const store = { gitDir: target.gitDir, workTree: this.root };
    const held = await Promise.all(trees.map((tree) => git(store, ["cat-file", "-e", `${tree}^{tree}`]).then(() => true, () => false)));
    return held.every(Boolean);
  }

  /** Paths whose content or mode differ between two trees. */
  async changedPaths(cwd: string, from: string, to: string, paths?: string[]): Promise<string[]> {
    if (from === to || paths?.length === 0) return [];
    return this.serial(cwd, async () => {
      const output = await gitText(this.target(cwd), [
        "--literal-pathspecs",
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-only",
        from,
        to,
        ...(paths ? ["--", ...paths] : []),
      ]);
      return output.split("\0").filter(Boolean);
    });
  }

  /**
   * Puts `paths` back to how they are in `tree` (bytes and the executable bit), deleting
   * those absent from it. Every blob is read before the first file is touched.
   */
  restore(cwd: string, tree: string, paths: string[]): Promise<void> {
    return this.serial(cwd, async () => {
      const target = this.target(cwd);
      const entries = new Map<string, { mode: string; content: Buffer }>();
      if (paths.length > 0) {
        const listing = await gitText(target, ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", tree, "--", ...paths]);
        for (const line of listing.split("\0").filter(Boolean)) {
          const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
          if (!match || match[2] !== "blob") continue;
          entries.set(match[4], { mode: match[1], content: await git(target, ["cat-file", "blob", match[3]]) });
        }
      }
      // A nested repository is recorded as a gitlink, never as files: it is not ours to restore.
      const steps = paths
        .map((relative) => ({ absolute: resolveInside(cwd, relative), entry: entries.get(relative) }))
        .filter((step) => !isDirectory(step.absolute));
      for (const step of steps) assertRealParentInside(cwd, step.absolute);
      for (const { absolute, entry } of steps) {
        if (!entry) {
          fs.rmSync(absolute, { force: true });
          continue;
        }
        fs.mkdirSync(path.dirname(absolute), { recursive: true });
        // Again after mkdir: a directory swapped for a link since the check must not be written through.
        assertRealParentInside(cwd, absolute);
        if (entry.mode === "120000") {
          fs.rmSync(absolute, { force: true });
          fs.symlinkSync(entry.content.toString("utf8"), absolute);
          continue;
        }
        replaceFileExclusively(absolute, entry.content, entry.mode === "100755" ? 0o755 : 0o644);
      }
    });
  }

  private async writeTree(cwd: string): Promise<SnapshotOutcome> {
    try {
      fs.accessSync(cwd, fs.constants.W_OK);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      return { off: `the working directory ${cwd} ${missing ? "does not exist" : "is not writable"}` };
    }
    const target = this.target(cwd);
    if (!fs.existsSync(path.join(target.gitDir, "HEAD"))) await this.init(target);
    const home = path.relative(cwd, this.dataHome);
    const homeExclude = home !== "" && !home.startsWith("..") && !path.isAbsolute(home) ? [`/${escapeIgnorePattern(home)}/\n`] : [];
    const excludeFile = path.join(target.gitDir, "info", "exclude");
    const exclude = homeExclude.join("");
    fs.writeFileSync(excludeFile, exclude);
    const tooLarge = this.tooLarge.get(cwd);
    if (tooLarge !== undefined && Date.now() < tooLarge) return { off: tooLargeReason(cwd, this.maxFiles) };
    const unchanged = this.unchangedTree(cwd, target, exclude);
    if (unchanged) return { tree: unchanged };
    this.gitSnapshots += 1;
    const listed = await listFiles(target, this.maxFiles);
    if (listed === null) {
      // Listing a huge tree takes seconds: it is not walked again on every turn.
      this.tooLarge.set(cwd, Date.now() + TOO_LARGE_RECHECK_MS);
      return { off: tooLargeReason(cwd, this.maxFiles) };
    }
    this.tooLarge.delete(cwd);
    // Only once the listing is known to be capped: ignored files outside ignored directories are listed one by one.
    const ignoredDirectories = await listIgnoredDirectories(target, this.maxFiles);
    const large = listed.filter((relative) => {
      const stat = fs.lstatSync(absoluteBytes(cwd, relative), { throwIfNoEntry: false });
      // One gone between listing and stat: git add will see it gone too.
      return stat !== undefined && stat.isFile() && stat.size > MAX_SNAPSHOT_FILE_BYTES;
    });
    // Stamped before git reads the files: one changed meanwhile differs from the stamp next time.
    const plan = ignoredDirectories && { files: listed, ignoredDirectories, exclude, limit: 2 * this.maxFiles };
    const stamp = plan && statStamp(cwd, plan, this.clock());
    if (large.length > 0) {
      const largeExclude = Buffer.from(large.map((file) => `/${escapeIgnorePattern(file)}\n`).join(""), "latin1");
      fs.writeFileSync(excludeFile, Buffer.concat([Buffer.from(exclude, "utf8"), largeExclude]));
      const pathspecs = Buffer.concat(large.map((file) => Buffer.from(`${file}\0`, "latin1")));
      await git(target, ["--literal-pathspecs", "rm", "-q", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: pathspecs });
    }
    await git(target, ["add", "-A", "--ignore-errors", "--", "."]).catch((error: Error) => {
      // --ignore-errors still exits 1 after adding everything it could read (an unreadable file).
      if (!/Permission denied|unable to index/.test(error.message)) throw error;
    });
    const tree = (await gitText(target, ["write-tree"])).trim();
    if (plan && stamp) this.stamped.set(target.gitDir, { tree, stamp, plan });
    return { tree };
  }

  /** The last tree, when the cwd's stat stamp and the store's info/exclude are the ones it was written with and the store still holds it. */
  private unchangedTree(cwd: string, target: GitTarget, exclude: string): string | null {
    const known = this.stamped.get(target.gitDir);
    if (!known) return null;
    if (known.plan.exclude !== exclude) return null;
    this.stamped.delete(target.gitDir);
    const object = path.join(target.gitDir, "objects", known.tree.slice(0, 2), known.tree.slice(2));
    if (!fs.existsSync(object) || statStamp(cwd, known.plan, this.clock()) !== known.stamp) return null;
    this.stamped.set(target.gitDir, known);
    return known.tree;
  }

  private async init(target: GitTarget): Promise<void> {
    fs.mkdirSync(this.root, { recursive: true });
    await git(target, ["init", "-q"]);
    for (const [key, value] of [
      ["core.autocrlf", "false"],
      ["core.filemode", "true"],
      ["core.symlinks", "true"],
      ["core.preloadindex", "true"],
      ["gc.auto", "0"],
    ]) {
      await git(target, ["config", key, value]);
    }
    fs.mkdirSync(path.join(target.gitDir, "info"), { recursive: true });
  }

  private serial<T>(cwd: string, work: () => Promise<T>): Promise<T> {
    const key = this.target(cwd).gitDir;
    this.queuedSnapshots.delete(key);
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }
}

function isGitMissing(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause ?? error) : error;
  return (cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT" && (cause as { path?: string }).path === "git";
}

function capDiff(diff: string): string {
  if (diff.length <= MAX_DIFF_CHARACTERS) return diff;
  const end = diff.lastIndexOf("\n", MAX_DIFF_CHARACTERS);
  return `${diff.slice(0, end + 1)}[… the rest of the diff, ${diff.length - end - 1} characters, is not shown …]\n`;
}

/** A directory replaced by a symlink since the checkpoint must not carry a restore outside the cwd (git checks the same). */
function assertRealParentInside(cwd: string, absolute: string): void {
  const root = fs.realpathSync(cwd);
  let existing = path.dirname(absolute);
  while (!fs.existsSync(existing) && existing !== path.dirname(existing)) existing = path.dirname(existing);
  const parent = fs.realpathSync(existing);
  if (parent !== root && !parent.startsWith(root + path.sep)) {
    throw new AtriumError(
      "bad_request",
      `files cannot be restored: ${path.relative(cwd, absolute)} is in a folder that leads outside the working directory ${cwd} through a symbolic link (${parent}); nothing was restored`,
    );
  }
}

function isDirectory(absolute: string): boolean {
  try {
    return fs.lstatSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

function escapeIgnorePattern(file: string): string {
  return file.replace(/[\\*?[\]!#]/g, (character) => `\\${character}`).replace(/ $/, "\\ ");
}

function resolveInside(cwd: string, relative: string): string {
  const absolute = path.resolve(cwd, relative);
  if (!absolute.startsWith(cwd.endsWith(path.sep) ? cwd : cwd + path.sep)) throw new Error(`${relative} is outside ${cwd}`);
  return absolute;
}

function parseChanges(numstat: string, nameStatus: string): ChangedFile[] {
  const statuses = new Map<string, ChangedFile["status"]>();
  const parts = nameStatus.split("\0");
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const letter = parts[index];
    statuses.set(parts[index + 1], letter === "A" ? "added" : letter === "D" ? "deleted" : "modified");
  }
  const files: ChangedFile[] = [];
  for (const line of numstat.split("\0").filter(Boolean)) {
    const [additions, deletions, ...rest] = line.split("\t");
    const file = rest.join("\t");
    files.push({
      path: file,
      status: statuses.get(file) ?? "modified",
      additions: additions === "-" ? 0 : Number(additions),
      deletions: deletions === "-" ? 0 : Number(deletions),
    });
  }
  return files;
}
