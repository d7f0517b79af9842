import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { MachinePort, McpRelay, McpRelaySpec } from "../ports/machine-port";
import type { SandboxBackend } from "../sandbox/sandbox-policy";

export interface LinkTransportOptions {
  machines: MachinePort;
  machineId: string;
  spec: McpRelaySpec;
  /** The SDK's JSON-RPC message parser (the SDK loads lazily, so it is handed in). */
  parse(value: unknown): JSONRPCMessage;
  onStderr(line: string): void;
  onSandbox(backend: SandboxBackend): void;
}

const BACKENDS = new Set<string>(["bwrap", "sandbox-exec", "off", "unavailable"]);

/**
 * An MCP client transport whose server runs on a linked machine (DESIGN §10b): the machine starts
 * the process, and each JSON-RPC message travels as one line over the machine's link. Every line
 * from the machine is parsed here, as the SDK's stdio transport parses a local server's.
 */
export class LinkTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set when the link to the machine went, so a call that was waiting knows its effects are unknown. */
  linkLost = false;
  private relay: McpRelay | null = null;
  private closed = false;

  constructor(private readonly options: LinkTransportOptions) {}

  async start(): Promise<void> {
    const { machines, machineId, spec } = this.options;
    // Throws machine_disconnected when the machine is offline: the start fails and is retried when it links.
    this.relay = machines.openMcp(machineId, spec, {
      onLine: (line) => this.receive(line),
      onStderr: (line) => this.options.onStderr(line),
      onStarted: (sandbox) => {
        if (BACKENDS.has(sandbox)) this.options.onSandbox(sandbox as SandboxBackend);
      },
      onExit: (reason, linkLost) => {
        this.linkLost = linkLost;
        this.options.onStderr(reason);
        this.end();
      },
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.relay || this.closed) throw new Error("the server on the machine is not running");
    this.relay.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.relay?.close();
    this.end();
  }

  private receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.options.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(new Error(`the machine relayed a line that is not a JSON-RPC message: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    this.onmessage?.(message);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
