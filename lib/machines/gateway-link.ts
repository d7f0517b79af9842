import type { WebSocket } from "ws";
import { MachineDisconnectedError, type MachineCall, type MachineCallIo, type McpRelay, type McpRelayHandlers, type McpRelaySpec } from "../ports/machine-port";
import { CappedOutput, maximumKeptOutputCharacters } from "../tools/capped-output";
import type { ToolResult } from "../tools/tool";
import { machineMessageSchema, parseFrame, type GatewayMessage, type MachineMessage } from "./link-protocol";

/** How often the gateway pings; a link that misses two pongs in a row is cut. */
export const HEARTBEAT_MS = 10_000;
/** After a cancel, how long the machine has to report the call's end before the gateway ends it itself. */
const CANCEL_GRACE_MS = 5_000;
/** A shell's kept output at most: its head and tail, and the line saying how much was left out between. */
const KEPT_WITH_MARKER = maximumKeptOutputCharacters + 100;

function capped(output: string): string {
  const kept = new CappedOutput();
  kept.append(output);
  return kept.toString();
}

interface PendingCall {
  io: MachineCallIo;
  /** What the machine streamed of this call: its result carries only what follows it. */
  streamed: string;
  resolve(result: ToolResult): void;
  reject(error: Error): void;
}

type CwdAnswer = Extract<MachineMessage, { type: "cwd_checked" }>;
type ProjectAnswer = Extract<MachineMessage, { type: "project" }>;
type SnapshotAnswer = Extract<MachineMessage, { type: "snapshot_done" }>;
type Answer = CwdAnswer | ProjectAnswer | SnapshotAnswer;
export type SnapshotQuestion = Omit<Extract<GatewayMessage, { type: "snapshot_op" }>, "type" | "requestId">;
/** A snapshot of a large tree takes a while: the machine has this long to answer. */
const SNAPSHOT_TIMEOUT_MS = 120_000;

/**
 * The gateway's end of one machine's WebSocket: sends calls and cwd checks, routes the
 * machine's output and results back to them, pings, and fails everything still open the
 * moment the link is gone (the calls' effects are then unknown).
 */
export class GatewayLink {
  private readonly calls = new Map<string, PendingCall>();
  private readonly checks = new Map<string, (answer: Answer) => void>();
  private readonly closedListeners: Array<() => void> = [];
  /** MCP servers running on the machine for this gateway, by relay id. */
  private readonly relays = new Map<string, McpRelayHandlers>();
  private sequence = 0;
  private answeredPing = true;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly socket: WebSocket,
    private readonly onSeen: () => void,
    heartbeatMs = HEARTBEAT_MS,
  ) {
    socket.on("message", (data) => this.receive(data));
    socket.on("pong", () => {
      this.answeredPing = true;
      this.onSeen();
    });
    socket.on("close", () => this.lost("the link to the machine closed"));
    socket.on("error", () => this.lost("the link to the machine failed"));
    this.heartbeat = setInterval(() => {
      if (!this.answeredPing) {
        socket.terminate();
        this.lost("the machine stopped answering heartbeats");
        return;
      }
      this.answeredPing = false;
      socket.ping();
    }, heartbeatMs);
    this.heartbeat.unref();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  onClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closedListeners.push(listener);
  }

  send(message: GatewayMessage): void {
    if (this.closed) throw new MachineDisconnectedError("the machine is not connected");
    this.socket.send(JSON.stringify(message));
  }

  call(call: MachineCall, io: MachineCallIo): Promise<ToolResult> {
    const callId = this.nextId("call");
    return new Promise<ToolResult>((resolve, reject) => {
      let cancelTimer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        if (!this.calls.has(callId)) return;
        if (!this.closed) this.send({ type: "cancel", callId });
        // The machine reports the interrupted result itself; this only bounds the wait for it.
        cancelTimer = setTimeout(() => settle({ status: "interrupted", output: "interrupted (the machine did not confirm the stop)" }), CANCEL_GRACE_MS);
      };
      const finish = () => {
        clearTimeout(cancelTimer);
        io.signal.removeEventListener("abort", onAbort);
        this.calls.delete(callId);
      };
      const settle = (result: ToolResult) => {
        finish();
        resolve(result);
      };
      this.calls.set(callId, { io, streamed: "", resolve: settle, reject: (error) => (finish(), reject(error)) });
      io.signal.addEventListener("abort", onAbort, { once: true });
      try {
        this.send({ type: "call", callId, tool: call.tool, input: call.input, cwd: call.cwd });
      } catch (error) {
        finish();
        reject(error);
        return;
      }
      if (io.signal.aborted) onAbort();
    });
  }

  /** Starts an MCP stdio server on the machine; its lines come back to `handlers` until it exits or the link goes. */
  openMcp(spec: McpRelaySpec, handlers: McpRelayHandlers): McpRelay {
    const relayId = this.nextId("mcp");
    this.send({ type: "mcp_start", relayId, spec });
    this.relays.set(relayId, handlers);
    return {
      send: (line) => this.send({ type: "mcp_send", relayId, line }),
      close: () => {
        if (!this.relays.delete(relayId)) return;
        if (!this.closed) this.send({ type: "mcp_stop", relayId });
      },
    };
  }

  checkCwd(cwd: string): Promise<CwdAnswer> {
    return this.ask<CwdAnswer>((requestId) => ({ type: "check_cwd", requestId, cwd }));
  }

  readProject(cwd: string): Promise<ProjectAnswer> {
    return this.ask<ProjectAnswer>((requestId) => ({ type: "read_project", requestId, cwd }));
  }

  snapshotOp(question: SnapshotQuestion): Promise<SnapshotAnswer> {
    return this.ask<SnapshotAnswer>((requestId) => ({ type: "snapshot_op", requestId, ...question }), SNAPSHOT_TIMEOUT_MS);
  }

  private ask<T extends Answer>(question: (requestId: string) => GatewayMessage, timeoutMs = 10_000): Promise<T> {
    const requestId = this.nextId("ask");
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.checks.delete(requestId);
        reject(new MachineDisconnectedError("the machine did not answer in time"));
      }, timeoutMs);
      this.checks.set(requestId, (answer) => {
        clearTimeout(timer);
        this.checks.delete(requestId);
        resolve(answer as T);
      });
      this.onClosed(() => {
        clearTimeout(timer);
        if (this.checks.delete(requestId)) reject(new MachineDisconnectedError("the link to the machine closed"));
      });
      this.send(question(requestId));
    });
  }

  /** Cuts the link now (revocation, shutdown): a close frame with the reason, and the socket goes. */
  cut(code: number, reason: string): void {
    if (!this.closed) this.socket.close(code, reason);
    // A close frame is a courtesy: the socket goes whether or not the machine answers it.
    setTimeout(() => this.socket.terminate(), 200).unref();
    this.lost(reason);
  }

  private receive(data: unknown): void {
    this.onSeen();
    const message = parseFrame(machineMessageSchema, data);
    if (!message) return;
    if (message.type === "output") this.output(message.callId, message.delta);
    else if (message.type === "result") this.settle(message.callId, message.result);
    else if (message.type === "mcp_line") this.relays.get(message.relayId)?.onLine(message.line);
    else if (message.type === "mcp_stderr") this.relays.get(message.relayId)?.onStderr(message.line);
    else if (message.type === "mcp_started") this.relays.get(message.relayId)?.onStarted(message.sandbox);
    else if (message.type === "mcp_exit") {
      const relay = this.relays.get(message.relayId);
      this.relays.delete(message.relayId);
      relay?.onExit(message.reason, false);
    } else if (message.type !== "hello") this.checks.get(message.requestId)?.(message);
  }

  /** A live delta; a machine that streams past what a shell keeps is not believed beyond it. */
  private output(callId: string, delta: string): void {
    const call = this.calls.get(callId);
    const room = call ? maximumKeptOutputCharacters - call.streamed.length : 0;
    if (!call || room <= 0) return;
    const kept = delta.length > room ? delta.slice(0, room) : delta;
    call.streamed += kept;
    call.io.onOutput(kept);
  }

  /** A call's result: its streamed text joined to the rest when the machine says so, and no longer than a shell keeps. */
  private settle(callId: string, frame: Extract<MachineMessage, { type: "result" }>["result"]): void {
    const call = this.calls.get(callId);
    if (!call) return;
    const { streamed, ...result } = frame;
    const output = streamed ? call.streamed + result.output : result.output;
    call.resolve({ ...result, output: output.length > KEPT_WITH_MARKER ? capped(output) : output });
  }

  private lost(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const call of [...this.calls.values()]) call.reject(new MachineDisconnectedError(reason));
    const relays = [...this.relays.values()];
    this.relays.clear();
    for (const relay of relays) relay.onExit(reason, true);
    for (const listener of this.closedListeners.splice(0)) listener();
  }

  private nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}-${this.sequence}`;
  }
}

/** Reads the first frame of a fresh link, which must be the machine's hello. */
export function waitForHello(socket: WebSocket, timeoutMs = 10_000): Promise<Extract<MachineMessage, { type: "hello" }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no hello within 10 s")), timeoutMs);
    socket.once("message", (data) => {
      clearTimeout(timer);
      const message = parseFrame(machineMessageSchema, data);
      if (message?.type === "hello") resolve(message);
      else reject(new Error("the first frame was not a hello"));
    });
    socket.once("close", () => {
      clearTimeout(timer);
      reject(new Error("closed before its hello"));
    });
  });
}

