import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { waitUntil } from "./wait-until";

const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface MachineProcess {
  child: ChildProcess;
  /** The machine's own HOME (its data directory is `<home>/.local/share/atrium`). */
  home: string;
  output(): string;
  /** Resolves once the output matches `pattern` `count` times in all (e.g. the second "connected"). */
  waitForOutput(pattern: RegExp, count?: number, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A real second process: `atrium machine connect <url>` with its own HOME (and so its own
 * data directory), the token in ATRIUM_MACHINE_TOKEN and the given roots, on loopback.
 */
export function startMachineProcess(options: {
  url: string;
  token: string;
  home: string;
  roots: string[];
  name?: string;
  cwd?: string;
  /** A second host's view of one path: the machine (in its own mount namespace) sees `source` at `target`. */
  view?: { source: string; target: string };
  /** A command the machine runs under, e.g. `ip netns exec <ns>` to put it on another network. */
  prefix?: string[];
  /** More environment for the machine process, e.g. NODE_EXTRA_CA_CERTS for a gateway behind TLS. */
  env?: Record<string, string>;
}): MachineProcess {
  fs.mkdirSync(options.home, { recursive: true });
  // bin/atrium.mjs, as `atrium` runs: it loads tsx from the checkout, whatever the cwd.
  const args = [path.join(PROJECT_ROOT, "bin", "atrium.mjs"), "machine", "connect", options.url];
  for (const root of options.roots) args.push("--root", root);
  if (options.name) args.push("--name", options.name);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.home,
    LANG: "C.UTF-8",
    ATRIUM_MACHINE_TOKEN: options.token,
    ...options.env,
  };
  const [command, commandArgs] = options.view
    ? ["bwrap", ["--dev-bind", "/", "/", "--bind", options.view.source, options.view.target, "--die-with-parent", process.execPath, ...args]]
    : [process.execPath, args];
  const [program, programArgs] = options.prefix?.length ? [options.prefix[0], [...options.prefix.slice(1), command, ...commandArgs]] : [command, commandArgs];
  const child = spawn(program, programArgs, { cwd: options.cwd ?? options.roots[0] ?? options.home, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    home: options.home,
    output: () => output,
    exited,
    waitForOutput: (pattern, count = 1, timeoutMs = 20_000) =>
      waitUntil(
        () => (output.match(new RegExp(pattern.source, "g")) ?? []).length >= count,
        `machine output ${pattern} ×${count} (so far:\n${output})`,
        timeoutMs,
        20,
      ),
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
