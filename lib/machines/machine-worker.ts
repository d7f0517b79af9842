import path from "node:path";
import type { WebSocket } from "ws";
import { isTreeId, type SnapshotStore } from "../checkpoints/snapshot-store";
import { builtinFileAndShellTools } from "../tools/builtin-tools";
import { runTool, type ToolResult } from "../tools/tool";
import { toolEnvironment } from "../tools/tool-environment";
import type { ToolSandbox } from "../sandbox/sandbox-policy";
import type { GatewayMessage, MachineMessage } from "./link-protocol";
import type { MachineRoots } from "./machine-paths";
import { OutputPump } from "./machine-output";
import { readProjectFiles } from "./machine-project";
import { MachineMcpServers } from "./machine-mcp";

type Call = Extract<GatewayMessage, { type: "call" }>;

export interface WorkerSetup {
  roots: MachineRoots;
  sandbox: ToolSandbox;
  /** The machine process's environment; tools see only its allowlist (DESIGN §5). */
  env: Record<string, string | undefined>;
  /** What MCP servers started here may read: the tool allowlist plus the names shared with `--mcp-env`. */
  mcpEnv: Record<string, string | undefined>;
  /** Checkpoints of its working directories, in the machine's own data directory. */
  snapshots: SnapshotStore;
  /** What the machine prints about the MCP servers it runs. */
  log?(line: string): void;
}

type SnapshotOp = Extract<GatewayMessage, { type: "snapshot_op" }>;

/**
 * The machine's side of one link: runs the calls the gateway sends with the same tool
 * definitions the gateway's host uses, inside the roots and this machine's sandbox, streams
 * their output, and stops a call (its process group) when the gateway cancels it. When the
 * link goes, every running call is stopped: nobody is left to hear its result.
 */
export class MachineWorker {
  private readonly running = new Map<string, AbortController>();
  private readonly mcp: MachineMcpServers;

  constructor(
    private readonly socket: WebSocket,
    private readonly setup: WorkerSetup,
  ) {
    this.mcp = new MachineMcpServers({
      roots: setup.roots,
      sandbox: setup.sandbox,
      env: setup.mcpEnv,
      send: (message) => this.send(message),
      bufferedBytes: () => socket.bufferedAmount,
      log: setup.log ?? (() => undefined),
    });
  }

  handle(message: GatewayMessage): void {
    if (message.type === "call") void this.run(message);
    else if (message.type === "cancel") this.running.get(message.callId)?.abort();
    else if (message.type === "check_cwd") {
      void this.setup.roots.checkCwd(message.cwd).then((answer) => this.send({ type: "cwd_checked", requestId: message.requestId, ...answer }));
    } else if (message.type === "snapshot_op") {
      void this.snapshotOp(message).then(
        (result) => this.send({ type: "snapshot_done", requestId: message.requestId, result, error: null }),
        (error: unknown) => this.send({ type: "snapshot_done", requestId: message.requestId, error: error instanceof Error ? error.message : String(error) }),
      );
    } else if (message.type === "mcp_start") this.mcp.start(message.relayId, message.spec);
    else if (message.type === "mcp_send") this.mcp.write(message.relayId, message.line);
    else if (message.type === "mcp_stop") this.mcp.stop(message.relayId);
    else if (message.type === "read_project") {
      void readProjectFiles(this.setup.roots, message.cwd).then((files) => this.send({ type: "project", requestId: message.requestId, ...files }));
    }
  }

  stopAll(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.mcp.stopAll();
  }

  private async snapshotOp(message: SnapshotOp): Promise<unknown> {
    const refusal = this.setup.roots.refusal(message.cwd, undefined);
    if (refusal) throw new Error(refusal);
    const { snapshots } = this.setup;
    const { cwd, from, to, paths } = message;
    if (message.op === "snapshot") return snapshots.snapshot(cwd);
    if (!from || !isTreeId(from) || (message.op !== "restore" && (!to || !isTreeId(to)))) throw new Error("not a snapshot tree id");
    if (message.op === "changes") return snapshots.changes(cwd, from, to!, message.context);
    if (message.op === "changed_paths") return snapshots.changedPaths(cwd, from, to!, paths);
    // Restored paths are the snapshot's own, relative to the cwd: none may step out of it.
    if ((paths ?? []).some((entry) => path.isAbsolute(entry) || entry.split("/").includes(".."))) throw new Error("a restore path leaves the working directory");
    await snapshots.restore(cwd, from, paths ?? []);
    return null;
  }

  private async run(call: Call): Promise<void> {
    const controller = new AbortController();
    this.running.set(call.callId, controller);
    const pump = new OutputPump(
      (delta) => this.send({ type: "output", callId: call.callId, delta }),
      () => this.socket.bufferedAmount,
    );
    let result: ToolResult;
    try {
      result = await this.execute(call, controller.signal, (delta) => pump.push(delta));
    } finally {
      this.running.delete(call.callId);
    }
    pump.flush();
    // The output already streamed is not sent again: the gateway joins it to the remainder.
    const { output, streamed } = pump.remainder(result.output);
    this.send({ type: "result", callId: call.callId, result: { ...result, output, ...(streamed ? { streamed } : {}) } });
  }

  private execute(call: Call, signal: AbortSignal, onOutput: (delta: string) => void): Promise<ToolResult> {
    const definition = builtinFileAndShellTools.find((tool) => tool.name === call.tool);
    if (!definition) return Promise.resolve({ status: "failed", output: `this machine does not run the ${call.tool} tool` });
    const refusal = this.setup.roots.refusal(call.cwd, call.input);
    if (refusal) return Promise.resolve({ status: "failed", output: `Refused by the machine: ${refusal}` });
    return runTool(definition, call.input, {
      cwd: call.cwd,
      signal,
      onOutput,
      env: toolEnvironment([], this.setup.env),
      sandbox: this.setup.sandbox,
    });
  }

  private send(message: MachineMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
