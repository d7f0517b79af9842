import { homeSkills, type SandboxPolicy } from "./sandbox-policy";

/**
 * A sandbox-exec (Seatbelt) profile with the rules bwrap applies on Linux. Later rules win
 * in SBPL, so the data directory is denied after the broad read allowance, and a cwd inside
 * it is allowed again after that. macOS has no PID namespace: process-info of other
 * processes is denied instead. Paths must already be resolved (/tmp is /private/tmp there).
 */
export function seatbeltProfile(policy: SandboxPolicy, cwd: string): string {
  const writable = policy.mode === "workspace-write" ? [cwd, ...policy.writable] : [];
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    "(allow file-read*)",
    `(allow file-write* ${[...writable.map(subpath), subpath("/private/tmp"), subpath("/private/var/folders"), '(literal "/dev/null")'].join(" ")})`,
    `(deny file-read* file-write* ${subpath(policy.home)})`,
    `(allow file-read* ${subpath(homeSkills(policy.home))})`,
  ];
  if (cwd.startsWith(`${policy.home}/`)) {
    lines.push(`(allow file-read* ${subpath(cwd)})`);
    if (policy.mode === "workspace-write") lines.push(`(allow file-write* ${subpath(cwd)})`);
  }
  if (policy.network) lines.push("(allow network*)");
  return `${lines.join("\n")}\n`;
}

function subpath(target: string): string {
  return `(subpath ${quote(target)})`;
}

/** An SBPL string literal: backslashes and double quotes escaped. */
function quote(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
