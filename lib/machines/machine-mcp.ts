import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { killProcessGroup } from "../tools/kill-process-group";
import { MissingVariableError, stdioEnvironment } from "../tools/mcp-environment";
import { serverSandbox } from "../sandbox/tool-sandbox";
import type { SandboxBackend, ToolSandbox } from "../sandbox/sandbox-policy";
import { wrapCommand } from "../sandbox/wrap-command";
import { MCP_LINE_LIMIT, type MachineMessage, type McpStartSpec } from "./link-protocol";
import type { MachineRoots } from "./machine-paths";

export interface McpHostSetup {
  roots: MachineRoots;
  sandbox: ToolSandbox;
  /** What a server's `${NAME}` and `envFrom` may read, here and never on the gateway: the tool allowlist plus the names its owner shared (`--mcp-env`). */
  env: Record<string, string | undefined>;
  send(message: MachineMessage): void;
  /** Bytes not yet sent on the link: past a bound, the server's stdout is paused until it drains. */
  bufferedBytes(): number;
  log(line: string): void;
}

const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

interface Running {
  child: ChildProcess;
  stopped: boolean;
}

/**
 * The MCP stdio servers the gateway asked this machine to run (DESIGN §10b): each started here,
 * inside this machine's sandbox with its cwd inside the roots and a clean environment, its stdout
 * relayed line by line to the gateway and the gateway's lines written to its stdin.
 */
export class MachineMcpServers {
  private readonly running = new Map<string, Running>();

  constructor(private readonly setup: McpHostSetup) {}

  start(relayId: string, spec: McpStartSpec): void {
    const refusal = this.refusal(spec);
    if (refusal) return this.exit(relayId, `refused by the machine: ${refusal}`);
    const cwd = spec.cwd ?? this.setup.roots.roots[0];
    let env: Record<string, string>;
    try {
      env = stdioEnvironment(spec, this.setup.env);
    } catch (error) {
      const reason = error instanceof MissingVariableError ? `${error.message} or not shared with MCP servers (atrium machine connect --mcp-env NAME)` : error instanceof Error ? error.message : String(error);
      return this.exit(relayId, reason);
    }
    // A server may ask for the network; it never turns off this machine's sandbox, and writes only inside the roots.
    const widening = spec.sandbox === "off" ? undefined : { network: spec.sandbox?.network, writable: spec.sandbox?.writable };
    const wrapped = wrapCommand(serverSandbox(this.setup.sandbox, widening), cwd, [spec.command, ...spec.args]);
    // One process per relay id: a repeated start replaces (and stops) the one before, never leaks it.
    this.stop(relayId);
    let child: ChildProcess;
    try {
      child = spawn(wrapped.command, wrapped.args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      // spawn throws at once for some arguments (a NUL byte): an answer, not a crash of the machine.
      return this.exit(relayId, `the server could not start: ${error instanceof Error ? error.message : String(error)}`, wrapped.backend);
    }
    const entry: Running = { child, stopped: false };
    this.running.set(relayId, entry);
    this.setup.log(`mcp server ${relayId} started: ${spec.command} ${spec.args.join(" ")} in ${cwd} (${wrapped.backend})`);
    this.setup.send({ type: "mcp_started", relayId, sandbox: wrapped.backend });
    this.relayStdout(relayId, child);
    // Diagnostics only: dropped while the link is backed up, so a chatty server cannot flood it.
    relayLines(child.stderr!, 4096, (line) => {
      if (this.setup.bufferedBytes() <= MAX_BUFFERED_BYTES) this.setup.send({ type: "mcp_stderr", relayId, line });
    });
    child.stdin!.on("error", () => undefined);
    child.once("error", (error) => this.finish(relayId, entry, `the server could not start: ${error.message}`, wrapped.backend));
    child.once("exit", (code, signal) => this.finish(relayId, entry, `the server exited (${signal ?? `code ${code}`})`, wrapped.backend));
  }

  write(relayId: string, line: string): void {
    const entry = this.running.get(relayId);
    if (entry && !entry.stopped) entry.child.stdin!.write(`${line}\n`);
  }

  stop(relayId: string): void {
    const entry = this.running.get(relayId);
    if (!entry) return;
    this.running.delete(relayId);
    entry.stopped = true;
    entry.child.stdin!.end();
    if (entry.child.pid !== undefined) killProcessGroup(entry.child.pid);
  }

  /** The link went: nobody is left to talk to the servers; the gateway starts them again when it relinks. */
  stopAll(): void {
    for (const relayId of [...this.running.keys()]) this.stop(relayId);
  }

  private refusal(spec: McpStartSpec): string | null {
    const cwd = spec.cwd ?? this.setup.roots.roots[0];
    if (!cwd) return "this machine offers no roots to run a server in";
    if (!path.isAbsolute(cwd)) return `the server's cwd ${cwd} is not an absolute path`;
    const outside = this.setup.roots.refusal(cwd, undefined);
    if (outside) return outside;
    const writable = spec.sandbox === "off" ? [] : (spec.sandbox?.writable ?? []);
    const escaping = writable.find((folder) => !path.isAbsolute(folder) || !this.setup.roots.contains(folder));
    return escaping ? `the server's writable folder ${escaping} is outside this machine's roots` : null;
  }

  private relayStdout(relayId: string, child: ChildProcess): void {
    const stdout = child.stdout!;
    relayLines(stdout, MCP_LINE_LIMIT, (line) => {
      this.setup.send({ type: "mcp_line", relayId, line });
      // A server that writes faster than the link carries waits: its messages are never dropped.
      if (this.setup.bufferedBytes() > MAX_BUFFERED_BYTES && !stdout.isPaused()) {
        stdout.pause();
        const resume = setInterval(() => {
          if (this.setup.bufferedBytes() > MAX_BUFFERED_BYTES && this.running.has(relayId)) return;
          clearInterval(resume);
          stdout.resume();
        }, 20);
      }
    }, () => {
      this.setup.log(`mcp server ${relayId} wrote a message over ${MCP_LINE_LIMIT} characters; stopped`);
      this.stop(relayId);
      this.exit(relayId, `the server wrote a message over ${MCP_LINE_LIMIT} characters`);
    });
  }

  private finish(relayId: string, entry: Running, reason: string, sandbox: SandboxBackend): void {
    if (this.running.get(relayId) === entry) this.running.delete(relayId);
    if (entry.stopped) return;
    entry.stopped = true;
    this.exit(relayId, reason, sandbox);
  }

  private exit(relayId: string, reason: string, sandbox?: SandboxBackend): void {
    this.setup.log(`mcp server ${relayId}: ${reason}`);
    this.setup.send({ type: "mcp_exit", relayId, reason, ...(sandbox ? { sandbox } : {}) });
  }
}

/** Splits a stream into lines, each at most `limit` characters; a longer one calls `tooLong` (or is cut, without it). */
function relayLines(stream: NodeJS.ReadableStream, limit: number, onLine: (line: string) => void, tooLong?: () => void): void {
  let partial = "";
  let overflowed = false;
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    if (overflowed) return;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.length > limit) {
        if (tooLong) {
          overflowed = true;
          return tooLong();
        }
        onLine(line.slice(0, limit));
      } else if (line.trim() !== "") onLine(line.replace(/\r$/, ""));
    }
    if (partial.length > limit) {
      if (tooLong) {
        overflowed = true;
        return tooLong();
      }
      onLine(partial.slice(0, limit));
      partial = "";
    }
  });
}
