import { existsSync } from "node:fs";
import { isWithin, realPathOf } from "./real-paths";
import { homeSkills, SandboxError, type SandboxPolicy } from "./sandbox-policy";

/**
 * bwrap's arguments for one command (DESIGN §5). Mounts apply in order, so: the read-only
 * root, a private /dev, /proc of the new PID namespace, a private /tmp; then the binds that
 * lie outside $ATRIUM_HOME, then an empty tmpfs over $ATRIUM_HOME, then the binds inside it
 * (a cwd inside the data directory stays visible; the rest of it does not). No
 * `--new-session`: Node's `detached` already gives the process its own session and group,
 * which is what the process-group kill on interrupt and timeout relies on.
 */
export function bwrapArguments(policy: SandboxPolicy, cwd: string, command: readonly string[]): string[] {
  const home = realPathOf(policy.home);
  const workingDirectory = realPathOf(cwd);
  const skills = realPathOf(homeSkills(policy.home));
  if (workingDirectory === home) {
    throw new SandboxError(`the working directory ${cwd} is Atrium's data directory, which tools may not see`);
  }
  const binds: Array<{ path: string; writable: boolean }> = [
    { path: workingDirectory, writable: policy.mode === "workspace-write" },
  ];
  if (policy.mode === "workspace-write") {
    for (const writable of policy.writable) {
      const resolved = realPathOf(writable);
      if (existsSync(resolved) && !isWithin(resolved, home)) binds.push({ path: resolved, writable: true });
    }
  }
  const bindArguments = (bind: { path: string; writable: boolean }) => [bind.writable ? "--bind" : "--ro-bind", bind.path, bind.path];
  const outside = binds.filter((bind) => !isWithin(bind.path, home));
  const inside = binds.filter((bind) => isWithin(bind.path, home));
  return [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    ...outside.flatMap(bindArguments),
    "--tmpfs", home,
    ...(existsSync(skills) ? ["--ro-bind", skills, skills] : []),
    ...inside.flatMap(bindArguments),
    "--unshare-pid",
    ...(policy.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--chdir", workingDirectory,
    "--",
    ...command,
  ];
}
