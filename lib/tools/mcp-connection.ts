import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServer, type McpServerConfig } from "../config/mcp-servers-schema";
import { httpHeaders, stdioEnvironment } from "./mcp-environment";
import { mcpResultToToolResult } from "./mcp-result";
import type { ToolResult } from "./tool";
import { serverSandbox } from "../sandbox/tool-sandbox";
import type { SandboxBackend, ToolSandbox } from "../sandbox/sandbox-policy";
import { wrapCommand } from "../sandbox/wrap-command";


/*
 * The SDK loads with the first connection: it is a large share of a server start, and most
 * installs configure no MCP server. Every use of it below follows a connection attempt.
 */
async function loadSdk() {
  const [client, stdio, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;
let sdkLoading: Promise<Sdk> | null = null;
let sdk: Sdk | null = null;
const sdkReady = () => (sdkLoading ??= loadSdk().then((loaded) => (sdk = loaded)));

export type McpServerStatus = "starting" | "connected" | "failed";

export interface McpRemoteTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

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
}

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

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly deps: McpConnectionDeps,
  ) {}

  get transport(): "stdio" | "http" {
    return isStdioServer(this.config) ? "stdio" : "http";
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
        const tail = this.stderrTail.at(-1);
        this.setStatus("failed", `${startFailure(error)}${tail ? ` (stderr: ${tail})` : ""}`);
        this.scheduleRetry();
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
    let opened = false;
    client.onclose = () => {
      if (!opened || this.client !== client) return;
      this.client = null;
      this.deps.log(`mcp ${this.name}: connection closed`);
      if (!this.stopped) {
        this.setStatus("failed", "the server closed the connection");
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
    const { StdioClientTransport, StreamableHTTPClientTransport } = sdk!;
    const config = this.config;
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

async function listAllTools(client: Client): Promise<McpRemoteTool[]> {
  const tools: McpRemoteTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    for (const tool of page.tools) {
      tools.push({ name: tool.name, description: tool.description ?? tool.title ?? "", inputSchema: tool.inputSchema as Record<string, unknown> });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Errors the server answered (bad arguments, unknown tool) keep the connection; anything else means it is gone. */
function isConnectionFailure(error: unknown): boolean {
  if (!sdk || !(error instanceof sdk.McpError)) return true;
  return error.code === sdk.ErrorCode.ConnectionClosed;
}

/** The SDK reports a server that exits while starting as "Connection closed"; say what happened. */
function startFailure(error: unknown): string {
  const message = messageOf(error);
  return /Connection closed/i.test(message) ? "the server exited while starting" : message;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
