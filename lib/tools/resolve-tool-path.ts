import path from "node:path";
import { checkToolPath, type PathAccess } from "../sandbox/path-rules";
import type { ToolContext } from "./tool";

/**
 * The path a file tool opens: resolved against the cwd and, when the call carries a sandbox,
 * checked by its rules on the real path (symlinks followed), which is the path returned.
 */
export function resolveToolPath(context: Pick<ToolContext, "cwd" | "sandbox">, requestedPath: string, access: PathAccess): string {
  if (!context.sandbox) return path.resolve(context.cwd, requestedPath);
  return checkToolPath(context.sandbox.policy, context.cwd, requestedPath, access);
}
