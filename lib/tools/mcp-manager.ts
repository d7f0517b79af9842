import { z } from "zod";
import type { McpServerConfig } from "../config/mcp-servers-schema";
import { McpConnection, type McpConnectionDeps, type McpServerStatus } from "./mcp-connection";
import { defineTool, type AnyToolDefinition } from "./tool";

export interface McpServerOverview {
  name: string;
  transport: "stdio" | "http";
  status: McpServerStatus;
  error: string | null;
  toolCount: number;
  /** The machine it runs on, by name, when the config names one (DESIGN §10b); null: the gateway's host. */
  machine: string | null;
}

export interface McpToolOrigin {
  server: string;
  tool: string;
  connection: McpConnection;
}

const MCP_INPUT = z.record(z.string(), z.unknown());

/** `mcp__<server>__<tool>`, with characters providers refuse in tool names replaced. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
}

/** The MCP servers of the config: started with the runtime, their tools offered as Atrium tools. */
export class McpManager {
  private readonly connections: McpConnection[];
  private cached: { tools: AnyToolDefinition[]; origins: Map<string, McpToolOrigin> } | null = null;

  constructor(
    servers: Record<string, McpServerConfig>,
    private readonly deps: Omit<McpConnectionDeps, "onChange">,
  ) {
    this.connections = Object.entries(servers).map(
      ([name, config]) => new McpConnection(name, config, { ...deps, onChange: () => (this.cached = null) }),
    );
    // A machine that links (again) gets its servers started at once, not at the next retry.
    deps.machines?.onLinked((machineId) => {
      for (const connection of this.connections) if (connection.machine !== undefined && connection.machineId() === machineId) connection.restartNow();
    });
  }

  /**
   * Waits for every server's first attempt, but not past `waitMs`: a slow server stays
   * `starting` and joins when it connects. Failures are reported and retried, never thrown.
   */
  async start(waitMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      timer.unref();
    });
    await Promise.race([Promise.all(this.connections.map((connection) => connection.start())), limit]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.stop()));
  }

  overview(): McpServerOverview[] {
    return this.connections.map((connection) => ({
      name: connection.name,
      transport: connection.transport,
      status: connection.status,
      error: connection.error,
      toolCount: connection.tools.length,
      machine: this.machineName(connection),
    }));
  }

  /**
   * Whether a tool may run in a conversation on `machineId`: a server the config puts on a machine
   * serves only that machine's conversations; other tools (the gateway's servers among them) serve all.
   */
  offeredOn(toolName: string, machineId: string): boolean {
    const connection = this.origin(toolName)?.connection;
    return connection?.machine === undefined || connection.machineId() === machineId;
  }

  private machineName(connection: McpConnection): string | null {
    if (connection.machine === undefined) return null;
    const id = connection.machineId();
    return id && this.deps.machines ? this.deps.machines.nameOf(id) : connection.machine;
  }

  /** Tools of the servers as last listed; a server that is down keeps its last list, so a call restarts it. */
  tools(): readonly AnyToolDefinition[] {
    return this.build().tools;
  }

  origin(toolName: string): McpToolOrigin | undefined {
    return this.build().origins.get(toolName);
  }

  private build(): { tools: AnyToolDefinition[]; origins: Map<string, McpToolOrigin> } {
    if (this.cached) return this.cached;
    const tools: AnyToolDefinition[] = [];
    const origins = new Map<string, McpToolOrigin>();
    for (const connection of this.connections) {
      for (const remote of connection.tools) {
        const name = mcpToolName(connection.name, remote.name);
        if (origins.has(name)) continue;
        origins.set(name, { server: connection.name, tool: remote.name, connection });
        tools.push(
          defineTool({
            name,
            description: remote.description || `${remote.name} from the MCP server ${connection.name}`,
            inputSchema: MCP_INPUT,
            inputJsonSchema: remote.inputSchema,
            execute: (input, context) =>
              connection.call(remote.name, input, { signal: context.signal, onProgress: (line) => context.onOutput(line) }),
          }) as AnyToolDefinition,
        );
      }
    }
    this.cached = { tools, origins };
    return this.cached;
  }
}
