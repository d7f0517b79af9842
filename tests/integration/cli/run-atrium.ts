import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const ATRIUM = path.join(REPO_ROOT, "bin", "atrium.ts");
/** The bundle `npm run build` writes, which bin/atrium.mjs runs while it is fresh. */
const BUNDLED_ATRIUM = path.join(REPO_ROOT, "dist", "atrium.mjs");
// By absolute URL, so the CLI can run from any cwd (export writes its default file there).
const TSX = pathToFileURL(path.join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;

export interface AtriumRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `atrium` process (from the sources, or from dist/ with `bundled`) against `home` and collects what it printed. */
export function runAtrium(
  args: string[],
  options: { home: string; cwd?: string; env?: Record<string, string | undefined>; bundled?: boolean },
): Promise<AtriumRun> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ATRIUM_HOME: options.home,
    NEXT_TELEMETRY_DISABLED: "1",
    ...options.env,
  };
  if (!options.env?.ATRIUM_TOKEN) delete env.ATRIUM_TOKEN;
  const child = spawn(process.execPath, options.bundled ? [BUNDLED_ATRIUM, ...args] : ["--import", TSX, ATRIUM, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}
