import { spawn } from "node:child_process";
import { cleanGitEnv, git, gitArgs, type GitTarget } from "./git";

/**
 * What git sees of a working directory: the files a snapshot takes, and the directories it never
 * walks. Paths are kept as git gives them, byte for byte: a BytePath holds one character per byte
 * (latin1), so a file whose name is not valid UTF-8 is still the same file when it is stat'ed.
 */
export type BytePath = string;

/** The bytes of a path relative to `cwd`, made absolute: what fs is given for a BytePath. */
export function absoluteBytes(cwd: string, relative: BytePath): Buffer {
  return Buffer.concat([Buffer.from(cwd, "utf8"), Buffer.from(`/${relative}`, "latin1")]);
}

/** Tracked and untracked, not ignored; null as soon as there are more than `limit` (a home directory must not be walked to the end). */
export async function listFiles(target: GitTarget, limit: number): Promise<BytePath[] | null> {
  const listed = await listCapped(target, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], limit);
  return listed && [...new Set(listed)];
}

/**
 * Directories git ignores whole (it never walks into them), relative and without the trailing
 * slash. Git lists the ignored files outside them one by one: null past `limit` entries, as listFiles.
 */
export async function listIgnoredDirectories(target: GitTarget, limit: number): Promise<Set<BytePath> | null> {
  const listed = await listCapped(target, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], limit);
  if (listed === null) return null;
  // Git also lists a directory whose files are all ignored, and it walks that one: only those a pattern ignores are skipped.
  const candidates = listed.filter((entry) => entry.endsWith("/"));
  if (candidates.length === 0) return new Set();
  const input = Buffer.from(candidates.map((entry) => `${entry}\0`).join(""), "latin1");
  const output = await git(target, ["check-ignore", "-z", "--stdin"], { input }).catch((error: Error) => {
    // Exit code 1: none of them is ignored.
    if ((error.cause as { code?: unknown } | undefined)?.code === 1) return Buffer.alloc(0);
    throw error;
  });
  return new Set(output.toString("latin1").split("\0").filter(Boolean).map((entry) => entry.replace(/\/$/, "")));
}

/** A NUL-separated git listing, read as it comes; git is killed once it passes `limit` entries (null then). */
function listCapped(target: GitTarget, args: string[], limit: number): Promise<BytePath[] | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", gitArgs(target, args), { cwd: target.workTree, env: cleanGitEnv(), stdio: ["ignore", "pipe", "ignore"] });
    const entries: BytePath[] = [];
    let rest = Buffer.alloc(0);
    let over = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (over) return;
      let buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      for (let end = buffer.indexOf(0); end !== -1; end = buffer.indexOf(0)) {
        entries.push(buffer.toString("latin1", 0, end));
        buffer = buffer.subarray(end + 1);
      }
      rest = Buffer.from(buffer);
      if (entries.length > limit) {
        over = true;
        child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (over) resolve(null);
      else if (code !== 0) reject(new Error(`git ${args[0]} failed with exit code ${code}`));
      else resolve(entries);
    });
  });
}
