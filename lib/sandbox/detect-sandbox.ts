import { accessSync, constants } from "node:fs";
import path from "node:path";

let detected: { platform: string; found: "bwrap" | "sandbox-exec" | null } | null = null;

/**
 * The platform's sandbox program, looked up once per process: bwrap on PATH on Linux,
 * /usr/bin/sandbox-exec on macOS, none elsewhere.
 */
export function detectSandbox(
  platform: NodeJS.Platform = process.platform,
  searchPath: string | undefined = process.env.PATH,
): "bwrap" | "sandbox-exec" | null {
  if (detected && detected.platform === platform) return detected.found;
  let found: "bwrap" | "sandbox-exec" | null = null;
  if (platform === "linux" && findOnPath("bwrap", searchPath)) found = "bwrap";
  if (platform === "darwin" && isExecutable("/usr/bin/sandbox-exec")) found = "sandbox-exec";
  detected = { platform, found };
  return found;
}

/** Where `bwrap` lives, for the argv: the first executable on PATH. */
export function findOnPath(name: string, searchPath: string | undefined = process.env.PATH): string | null {
  for (const directory of (searchPath ?? "").split(path.delimiter)) {
    if (directory === "") continue;
    const candidate = path.join(directory, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
