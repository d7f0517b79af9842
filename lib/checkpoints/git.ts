import { execFile } from "node:child_process";

/** What git may see from our environment: nothing that could point it at another repository or config. */
export function cleanGitEnv(): NodeJS.ProcessEnv {
  return {
    // Required by the ProcessEnv type Next declares; harmless to git.
    NODE_ENV: process.env.NODE_ENV,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
  };
}

export interface GitTarget {
  gitDir: string;
  workTree: string;
}

export interface GitRun {
  input?: string | Buffer;
  /** Output as bytes (blob contents); text otherwise. */
  binary?: boolean;
}

/**
 * The arguments of a git run against the snapshot store only: explicit --git-dir and --work-tree,
 * no discovery. What it ignores is the working directory's own ignore files and the store's
 * info/exclude, never the user's global excludes file ($XDG_CONFIG_HOME/git/ignore, read even
 * without a global config): the user's config is not read either (cleanGitEnv), and a snapshot
 * must not change with a file outside the cwd that its stat stamp does not see.
 */
export function gitArgs(target: GitTarget, args: string[]): string[] {
  return [`--git-dir=${target.gitDir}`, `--work-tree=${target.workTree}`, "-c", "core.quotepath=false", "-c", "core.excludesFile=/dev/null", ...args];
}

/** Runs git against the snapshot store only (gitArgs), with a clean env. */
export function git(target: GitTarget, args: string[], options: GitRun = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      gitArgs(target, args),
      { cwd: target.workTree, env: cleanGitEnv(), encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`git ${args[0]} failed: ${stderr.toString().trim() || error.message}`, { cause: error }));
          return;
        }
        resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export async function gitText(target: GitTarget, args: string[], options: GitRun = {}): Promise<string> {
  return (await git(target, args, options)).toString("utf8");
}
