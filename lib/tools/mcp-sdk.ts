import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

export interface McpRemoteTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

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
    JSONRPCMessageSchema: types.JSONRPCMessageSchema,
  };
}
export type Sdk = Awaited<ReturnType<typeof loadSdk>>;
let sdkLoading: Promise<Sdk> | null = null;
let sdk: Sdk | null = null;
export const sdkReady = () => (sdkLoading ??= loadSdk().then((loaded) => (sdk = loaded)));

/** The SDK once a connection attempt has loaded it. */
export function loadedSdk(): Sdk {
  if (!sdk) throw new Error("the MCP SDK is used before it loaded");
  return sdk;
}

export async function listAllTools(client: Client): Promise<McpRemoteTool[]> {
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
export function isConnectionFailure(error: unknown): boolean {
  if (!sdk || !(error instanceof sdk.McpError)) return true;
  return error.code === sdk.ErrorCode.ConnectionClosed;
}

/** The SDK reports a server that exits while starting as "Connection closed"; say what happened. */
export function startFailure(error: unknown): string {
  const message = messageOf(error);
  return /Connection closed/i.test(message) ? "the server exited while starting" : message;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
