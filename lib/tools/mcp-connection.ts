import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { isConnectionFailure, listAllTools, loadedSdk, messageOf, sdkReady, startFailure, type McpRemoteTool } from "./mcp-sdk";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServer, type McpServerConfig, type StdioServerConfig } from "../config/mcp-servers-schema";
import { httpHeaders, stdioEnvironment } from "./mcp-environment";
import { mcpResultToToolResult } from "./mcp-result";
import type { ToolResult } from "./tool";
import { serverSandbox } from "../sandbox/tool-sandbox";
import type { SandboxBackend, ToolSandbox } from "../sandbox/sandbox-policy";
import { wrapCommand } from "../sandbox/wrap-command";
import { MachineDisconnectedError, isMachineDisconnected, type MachinePort } from "../ports/machine-port";
import { LinkTransport } from "./mcp-link-transport";

export type McpServerStatus = "starting" | "connected" | "failed";

export type { McpRemoteTool } from "./mcp-sdk";

export interface McpConnectionDeps {
  env: Readonly<Record<string, string | undefined>>;
  /** The server log: connection changes and the server's stderr. */
  log(message: string): void;
  onChange(): void;
  /** Delay before retry `attempt` (1, 2, …) after a failed start. */
  retryDelayMs?(attempt: number): number;
  connectTimeoutMs?: number;
  /** Config `sandbox`: stdio servers run inside it, widened by their own entry (DESIGN §5). */
  sandbox?: ToolSandbox;
  /** Where a server with `machine` runs (DESIGN §10b); without it such a server cannot start. */
  machines?: MachinePort;
}

/** The server's machine is unknown or offline: it starts when that machine links, not on a timer. */
class MachineUnavailableError extends Error {}

const STDERR_LINES_KEPT = 5;

function defaultRetryDelay(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** (attempt - 1));
}

/**
 * One configured MCP server: connects, lists its tools, calls them. A failed start is
 * reported and retried with backoff; a server that exits is reconnected by the next call.
 */
export class McpConnection {
  status: McpServerStatus = "starting";
  error: string | null = null;
  tools: McpRemoteTool[] = [];
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly stderrTail: string[] = [];
  /** How the server process runs; "off" for an HTTP server, which Atrium does not start. */
  sandboxBackend: SandboxBackend = "off";
  /** The relays of clients whose server runs on a linked machine. */
  private readonly links = new WeakMap<Client, LinkTransport>();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly deps: McpConnectionDeps,
  ) {}

  get transport(): "stdio" | "http" {
    return isStdioServer(this.config) ? "stdio" : "http";
  }

  /** The machine the config names (id or name); undefined: the gateway's host. */
  get machine(): string | undefined {
    return isStdioServer(this.config) ? this.config.machine : undefined;
  }

  /** The id of the machine this server runs on, `local` for the gateway's host; undefined when the config names no known machine. */
  machineId(): string | undefined {
    const machine = this.machine;
    return machine === undefined ? "local" : this.deps.machines?.machineIdOf(machine);
  }

  /** Its machine linked (again): start it now unless it is running. */
  restartNow(): void {
    if (this.stopped || this.client || this.connecting) return;
    this.failures = 0;
    this.connect().catch(() => undefined);
  }

  /** The first attempt; resolves either way (a failing server is never fatal). */
  async start(): Promise<void> {
    await this.connect().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }

  async call(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; onProgress(line: string): void }): Promise<ToolResult> {
    let client: Client;
    try {
      client = this.client ?? (await this.connect());
    } catch (error) {
      return { status: "failed", output: `The MCP server "${this.name}" is not available: ${messageOf(error)}` };
    }
    const timeout = this.config.callTimeoutSeconds * 1000;
    // A notification handled after the result resolved must not add output to a finished item.
    let finished = false;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => {
          if (finished) return;
          const total = progress.total !== undefined ? `/${progress.total}` : "";
          options.onProgress(`progress ${progress.progress}${total}${progress.message ? `: ${progress.message}` : ""}\n`);
        },
      });
      finished = true;
      return { ...mcpResultToToolResult(result), sandbox: this.sandboxBackend };
    } catch (error) {
      finished = true;
      if (options.signal.aborted) throw error;
      // The link to its machine went mid-call: as for shell there, the call's effects are unknown (DESIGN §10b).
      if (this.links.get(client)?.linkLost) throw new MachineDisconnectedError(`the link to the machine running ${this.name} was lost`);
      if (this.client === client && isConnectionFailure(error)) {
        // An HTTP server that went away does not close the client; drop it so the next call reconnects.
        this.client = null;
        await client.close().catch(() => undefined);
        this.setStatus("failed", `the connection failed: ${messageOf(error)}`);
        this.failures = 1;
        this.scheduleRetry();
      }
      if (this.client !== client) {
        const tail = this.stderrTail.at(-1);
        return {
          status: "failed",
          output: `The MCP server "${this.name}" stopped during this call (${messageOf(error)})${tail ? `; its last output: ${tail}` : ""}. The call's outcome is unknown; the next call restarts the server.`,
        };
      }
      return { status: "failed", output: `${this.name}/${tool} failed: ${messageOf(error)}` };
    }
  }

  private connect(): Promise<Client> {
    if (this.connecting) return this.connecting;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    // A retry keeps showing the failure until it succeeds, rather than flickering to "starting".
    if (this.status !== "failed") this.setStatus("starting", null);
    this.connecting = this.open()
      .then((client) => {
        this.failures = 0;
        this.setStatus("connected", null);
        this.deps.log(`mcp ${this.name}: connected, ${this.tools.length} tools`);
        return client;
      })
      .catch((error: unknown) => {
        this.failures += 1;
        const unavailable = error instanceof MachineUnavailableError || isMachineDisconnected(error);
        const tail = unavailable ? undefined : this.stderrTail.at(-1);
        this.setStatus("failed", `${startFailure(error)}${tail ? ` (stderr: ${tail})` : ""}`);
        if (!unavailable) this.scheduleRetry();
        throw error;
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const { Client, ToolListChangedNotificationSchema } = await sdkReady();
    const client = new Client({ name: "atrium", version: "0.1.0" });
    const transport = this.makeTransport();
    if (transport instanceof LinkTransport) this.links.set(client, transport);
    let opened = false;
    client.onclose = () => {
      if (!opened || this.client !== client) return;
      this.client = null;
      this.deps.log(`mcp ${this.name}: connection closed`);
      if (!this.stopped) {
        const lost = this.links.get(client)?.linkLost;
        this.setStatus("failed", lost ? `machine ${this.machine} disconnected; the server starts again when it reconnects` : "the server closed the connection");
        if (lost) return;
        this.failures = 1;
        this.scheduleRetry();
      }
    };
    client.onerror = (error) => {
      this.deps.log(`mcp ${this.name}: ${messageOf(error)}`);
      // The HTTP transport reports a server it can no longer reach here and leaves pending calls
      // waiting; closing the client fails them (ConnectionClosed) so the next call reconnects.
      if (opened && this.client === client && /reconnect/i.test(messageOf(error))) client.close().catch(() => undefined);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      this.tools = await listAllTools(client);
      this.deps.onChange();
    });
    try {
      await client.connect(transport, { timeout: this.deps.connectTimeoutMs ?? 20_000 });
      this.tools = await listAllTools(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.close().catch(() => undefined);
      throw new Error("the runtime is stopping");
    }
    opened = true;
    this.client = client;
    return client;
  }

  private makeTransport(): Transport {
    const { StdioClientTransport, StreamableHTTPClientTransport } = loadedSdk();
    const config = this.config;
    if (isStdioServer(config) && config.machine !== undefined) {
      const machineId = this.machineId();
      if (machineId === undefined) throw new MachineUnavailableError(`machine "${config.machine}" is not a machine of this gateway (config mcpServers.${this.name}.machine)`);
      if (machineId !== "local") return this.linkTransport(config, machineId);
    }
    if (isStdioServer(config)) {
      const cwd = config.cwd ?? process.cwd();
      const sandbox = this.deps.sandbox ? serverSandbox(this.deps.sandbox, config.sandbox) : undefined;
      const wrapped = wrapCommand(sandbox, cwd, [config.command, ...config.args]);
      this.sandboxBackend = wrapped.backend;
      const transport = new StdioClientTransport({
        command: wrapped.command,
        args: wrapped.args,
        env: stdioEnvironment(config, this.deps.env),
        cwd,
        stderr: "pipe",
      });
      let partial = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) this.noteStderr(line);
      });
      return transport;
    }
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: httpHeaders(config, this.deps.env) } });
  }

  private linkTransport(config: StdioServerConfig, machineId: string): Transport {
    const { command, args, env, envFrom, cwd, sandbox } = config;
    return new LinkTransport({
      machines: this.deps.machines!,
      machineId,
      spec: { command, args, env, envFrom, ...(cwd ? { cwd } : {}), ...(sandbox ? { sandbox: sandbox === "off" ? "off" : { ...sandbox } } : {}) },
      parse: (value) => loadedSdk().JSONRPCMessageSchema.parse(value),
      onStderr: (line) => this.noteStderr(line),
      onSandbox: (backend) => (this.sandboxBackend = backend),
    });
  }

  private noteStderr(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed === "") return;
    this.stderrTail.push(trimmed.slice(0, 500));
    if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
    this.deps.log(`mcp ${this.name} stderr: ${trimmed}`);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = (this.deps.retryDelayMs ?? defaultRetryDelay)(this.failures);
    this.deps.log(`mcp ${this.name}: ${this.error ?? "failed"}; retrying in ${delay} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => undefined);
    }, delay);
    this.retryTimer.unref();
  }

  private setStatus(status: McpServerStatus, error: string | null): void {
    this.status = status;
    this.error = error;
    this.deps.onChange();
  }
}
