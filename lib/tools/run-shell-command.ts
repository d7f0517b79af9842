import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { wrapCommand } from "../sandbox/wrap-command";
import type { ToolSandbox } from "../sandbox/sandbox-policy";
import { CappedOutput } from "./capped-output";
import { killProcessGroup } from "./kill-process-group";
import type { ToolResult } from "./tool";
import { toolEnvironment } from "./tool-environment";

export interface ShellCommand {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput(delta: string): void;
  env?: Record<string, string>;
  sandbox?: ToolSandbox;
}

/**
 * stdout and stderr share one pipe so their lines arrive in the order the
 * command wrote them. The redirect sits on the command's first line so bash's
 * "line N" error messages keep their numbers; a syntax error stops bash before
 * the redirect runs, which is why stderr is still read.
 */
const mergeStderrIntoStdout = "exec 2>&1; ";

/**
 * After bash exits, a background child may still hold the pipes open; the
 * command is finished, so stop reading after this long rather than wait for it.
 */
const pipeDrainGraceMs = 250;

type StopReason = "timeout" | "interrupt";

export async function runShellCommand(shellCommand: ShellCommand): Promise<ToolResult> {
  const { command, cwd, timeoutMs, signal, onOutput } = shellCommand;
  const env = shellCommand.env ?? toolEnvironment();
  if (signal.aborted) return { status: "interrupted", output: "interrupted before it started" };
  await assertDirectory(cwd);
  const wrapped = wrapCommand(shellCommand.sandbox, cwd, ["bash", "-c", mergeStderrIntoStdout + command]);

  return new Promise<ToolResult>((resolve, reject) => {
    const child = spawn(wrapped.command, wrapped.args, {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // Next's global types declare NODE_ENV always set; a tool's environment leaves it out on purpose.
      env: env as NodeJS.ProcessEnv,
    });
    const output = new CappedOutput();
    let stopReason: StopReason | undefined;
    let exited = false;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const stop = (reason: StopReason) => {
      if (exited || stopReason !== undefined || child.pid === undefined) return;
      stopReason = reason;
      killProcessGroup(child.pid);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      cleanUp();
      if (!exited && child.pid !== undefined) killProcessGroup(child.pid);
      reject(error);
    };

    // A throwing listener would otherwise escape from a stream event and crash the server.
    const receive = (delta: string) => {
      output.append(delta);
      try {
        onOutput(delta);
      } catch (error) {
        fail(error);
      }
    };
    child.stdout.setEncoding("utf8").on("data", receive);
    child.stderr.setEncoding("utf8").on("data", receive);
    const timeoutTimer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = () => stop("interrupt");
    signal.addEventListener("abort", onAbort, { once: true });

    const cleanUp = () => {
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      signal.removeEventListener("abort", onAbort);
    };
    const finish = (code: number | null, signalName: NodeJS.Signals | null) => {
      if (settled) return;
      cleanUp();
      const result = describeResult(output.toString(), code, signalName, stopReason, timeoutMs);
      resolve(shellCommand.sandbox ? { ...result, sandbox: wrapped.backend } : result);
    };

    child.once("error", fail);
    child.once("exit", (code, signalName) => {
      exited = true;
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signalName);
      }, pipeDrainGraceMs);
    });
    child.once("close", finish);
  });
}

function describeResult(
  output: string,
  code: number | null,
  signalName: NodeJS.Signals | null,
  stopReason: StopReason | undefined,
  timeoutMs: number,
): ToolResult {
  if (stopReason === "timeout") {
    return { status: "failed", output: withLastLine(output, `timed out after ${timeoutMs} ms`), exitCode: code };
  }
  if (stopReason === "interrupt") {
    return { status: "interrupted", output: withLastLine(output, "interrupted"), exitCode: code };
  }
  if (code === 0) return { status: "completed", output, exitCode: code };
  const ending = code === null ? `killed by ${signalName ?? "a signal"}` : `exit code ${code}`;
  return { status: "failed", output: withLastLine(output, ending), exitCode: code };
}

function withLastLine(output: string, line: string): string {
  if (output === "") return line;
  return output.endsWith("\n") ? `${output}${line}` : `${output}\n${line}`;
}

async function assertDirectory(cwd: string): Promise<void> {
  // Without this, spawn reports a missing cwd as "spawn bash ENOENT", which points at bash.
  let isDirectory: boolean;
  try {
    isDirectory = (await fs.stat(cwd)).isDirectory();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`working directory ${cwd} cannot be used (${reason})`, { cause: error });
  }
  if (!isDirectory) throw new Error(`working directory ${cwd} is not a directory`);
}
