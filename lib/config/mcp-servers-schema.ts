import { z } from "zod";
import { absolutePathSchema } from "./absolute-path";

const policySchema = z.enum(["auto", "ask", "deny"]);
const serverNameSchema = z.string().regex(/^(?!.*__)[a-zA-Z0-9_-]{1,48}$/, "letters, digits, - and _ (no __ inside a tool name)");
const variableNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");
/** Atrium's own variables (the access token among them) never reach a server (DESIGN §10). */
const sourceVariableSchema = variableNameSchema.refine((name) => !name.startsWith("ATRIUM_"), "ATRIUM_* variables are Atrium's own and are never handed to an MCP server");
const expandableValueSchema = z.string().refine((value) => !/\$\{ATRIUM_/.test(value), "${ATRIUM_*} is Atrium's own and is never handed to an MCP server");

/** A stdio server may widen its own sandbox: many need the network, some a folder (DESIGN §5). */
const serverSandboxSchema = z.union([
  z.literal("off"),
  z.strictObject({ network: z.boolean().optional(), writable: z.array(absolutePathSchema).optional() }),
]);

/** Approval for the server's tools as a whole, then per tool by the server's own tool name. */
const approvalFields = {
  approval: policySchema.optional(),
  tools: z.record(z.string().min(1), policySchema).optional(),
  /** Seconds before one call gives up; progress notifications restart the clock. */
  callTimeoutSeconds: z.number().int().positive().default(600),
};

/** The Claude Code / Cursor shape for a server run as a child process. */
export const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Literal, non-secret values, as in Claude Code's file. */
  env: z.record(variableNameSchema, expandableValueSchema).default({}),
  /** Secrets by name: the child's variable → the variable in Atrium's own environment. */
  envFrom: z.record(variableNameSchema, sourceVariableSchema).default({}),
  cwd: z.string().min(1).optional(),
  sandbox: serverSandboxSchema.optional(),
  /**
   * The machine (id or name, DESIGN §10b) that starts this server, inside its own sandbox and
   * roots; its tools are offered only to conversations on that machine. Absent: the gateway's host.
   */
  machine: z.string().min(1).max(64).optional(),
  ...approvalFields,
});

/** A Streamable HTTP server; secrets in headers come from Atrium's environment by name. */
export const httpServerSchema = z.strictObject({
  url: z.url(),
  headers: z.record(z.string().min(1), expandableValueSchema).default({}),
  headersEnv: z.record(z.string().min(1), sourceVariableSchema).default({}),
  ...approvalFields,
});

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema]);

export const mcpServersSchema = z.record(serverNameSchema, mcpServerSchema).default({});

export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type StdioServerConfig = z.output<typeof stdioServerSchema>;
export type HttpServerConfig = z.output<typeof httpServerSchema>;

export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config;
}

/** Approval entries the config's mcpServers imply, in the form resolveApprovalPolicy reads (`mcp__server__*` for a whole server). */
export function mcpApprovalEntries(servers: Record<string, McpServerConfig>): Record<string, z.infer<typeof policySchema>> {
  const entries: Record<string, z.infer<typeof policySchema>> = {};
  for (const [server, config] of Object.entries(servers)) {
    if (config.approval) entries[`mcp__${server}__*`] = config.approval;
    for (const [tool, policy] of Object.entries(config.tools ?? {})) entries[`mcp__${server}__${tool}`] = policy;
  }
  return entries;
}
