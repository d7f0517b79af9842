import { bwrapArguments } from "./bwrap-arguments";
import { findOnPath } from "./detect-sandbox";
import { realPathOf } from "./real-paths";
import { sandboxBackend, type SandboxBackend, type ToolSandbox } from "./sandbox-policy";
import { seatbeltProfile } from "./seatbelt-profile";

export interface WrappedCommand {
  command: string;
  args: string[];
  backend: SandboxBackend;
}

/** The program and arguments that run `argv` in `cwd` under the sandbox (or bare when off or unavailable). */
export function wrapCommand(sandbox: ToolSandbox | undefined, cwd: string, argv: readonly string[]): WrappedCommand {
  const [command, ...args] = argv;
  const backend = sandbox ? sandboxBackend(sandbox) : "off";
  if (!sandbox || backend === "off" || backend === "unavailable") return { command, args, backend };
  if (backend === "bwrap") {
    return { command: findOnPath("bwrap") ?? "bwrap", args: bwrapArguments(sandbox.policy, cwd, argv), backend };
  }
  const policy = {
    ...sandbox.policy,
    home: realPathOf(sandbox.policy.home),
    writable: sandbox.policy.writable.map(realPathOf),
  };
  return { command: "/usr/bin/sandbox-exec", args: ["-p", seatbeltProfile(policy, realPathOf(cwd)), ...argv], backend };
}
