import { spawn } from "node:child_process";
import { cleanGitEnv, gitText, type GitTarget } from "./git";

/** What git sees of a working directory: the files a snapshot takes, and the directories it never walks. */

/** Tracked and untracked, not ignored; null as soon as there are more than `limit` (a home directory must not be walked to the end). */
export function listFiles(target: GitTarget, limit: number): Promise<string[] | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "git",
      [`--git-dir=${target.gitDir}`, `--work-tree=${target.workTree}`, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      { cwd: target.workTree, env: cleanGitEnv(), stdio: ["ignore", "pipe", "ignore"] },
    );
    const files = new Set<string>();
    let rest = "";
    let over = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\0");
      rest = parts.pop() ?? "";
      for (const part of parts) files.add(part);
      if (files.size > limit && !over) {
        over = true;
        child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (over) resolve(null);
      else if (code !== 0) reject(new Error(`git ls-files failed with exit code ${code}`));
      else resolve([...files]);
    });
  });
}

/** Directories git ignores whole (it never walks into them), relative and without the trailing slash. */
export async function listIgnoredDirectories(target: GitTarget): Promise<Set<string>> {
  const output = await gitText(target, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]);
  return new Set(output.split("\0").filter((entry) => entry.endsWith("/")).map((entry) => entry.slice(0, -1)));
}
