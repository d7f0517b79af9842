import path from "node:path";
import { isWithin, realPathOf } from "./real-paths";
import { homeSkills, SandboxError, type SandboxPolicy } from "./sandbox-policy";

export type PathAccess = "read" | "write";

/**
 * The file tools' half of the sandbox (DESIGN §5), applied to the resolved path (symlinks
 * included): nothing inside $ATRIUM_HOME in any mode, except the cwd itself when it lies
 * there; reads anywhere else (bwrap's root is readable too); writes only inside the cwd or
 * a `sandbox.writable` path in workspace-write, nowhere in read-only, anywhere when off.
 * The home's skills folder is the one part of it a tool may read: a loaded skill names files
 * beside its SKILL.md for the agent to read (DESIGN §4). Returns the resolved path, which is
 * what the tool must then open.
 */
export function checkToolPath(policy: SandboxPolicy, cwd: string, requestedPath: string, access: PathAccess): string {
  const resolved = realPathOf(path.resolve(cwd, requestedPath));
  const workingDirectory = realPathOf(cwd);
  const home = realPathOf(policy.home);
  const inCwd = isWithin(resolved, workingDirectory) && workingDirectory !== home;
  if (access === "read" && isWithin(resolved, realPathOf(homeSkills(policy.home)))) return resolved;
  if (isWithin(resolved, home) && !inCwd) {
    throw new SandboxError(`${requestedPath} is inside Atrium's data directory, which tools may not read or write`);
  }
  if (access === "read" || policy.mode === "off") return resolved;
  if (policy.mode === "read-only") {
    throw new SandboxError(`${requestedPath} cannot be written: the sandbox is read-only (config sandbox.mode)`);
  }
  if (inCwd || policy.writable.some((writable) => isWithin(resolved, realPathOf(writable)))) return resolved;
  throw new SandboxError(
    `${requestedPath} resolves to ${resolved}, outside the working directory and the sandbox.writable paths; write inside ${workingDirectory}`,
  );
}
