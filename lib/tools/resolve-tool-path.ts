import path from "node:path";

/**
 * Absolute paths are allowed on purpose: this is a local coding agent working
 * on the owner's machine, and approvals guard the writes.
 */
export function resolveToolPath(cwd: string, requestedPath: string): string {
  return path.resolve(cwd, requestedPath);
}
