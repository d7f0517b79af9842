import { z } from "zod";

/**
 * The messages of the machine link (one WebSocket, JSON text frames, DESIGN §10b). The
 * machine dials out and says hello; the gateway answers welcome, then asks for tool calls
 * and cwd checks. Both ends parse every frame with these schemas.
 */
export const LINK_PROTOCOL = 1;
export const MACHINE_CONNECT_PATH = "/api/machines/connect";
/** The close code a revoked machine's link is cut with: the machine stops instead of redialling. */
export const REVOKED_CLOSE_CODE = 4403;
/**
 * The close code of a link the gateway could not keep (a cluster node whose database refused its
 * mark, or whose claim was taken meanwhile): the machine redials, but with growing backoff, as if
 * it had never been welcomed, so a refusal that persists is not a redial every second.
 */
export const TRY_AGAIN_CLOSE_CODE = 1013;

const toolResultSchema = z.object({
  status: z.enum(["completed", "failed", "interrupted"]),
  output: z.string(),
  exitCode: z.number().int().nullable().optional(),
  sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
  /** The call's output is the text streamed in its output frames followed by `output` (nothing sent twice). */
  streamed: z.boolean().optional(),
});

/** At most this many skills and as many agents of a project cross the link; each file at most PROJECT_FILE_LIMIT. */
export const PROJECT_ENTRIES_LIMIT = 200;
export const PROJECT_FILE_LIMIT = 64 * 1024;
const projectSkillSchema = z.object({
  folderName: z.string().max(255),
  path: z.string().max(4096),
  text: z.string().max(PROJECT_FILE_LIMIT),
  files: z.array(z.string().max(4096)).max(50),
});
const projectAgentSchema = z.object({ path: z.string().max(4096), text: z.string().max(PROJECT_FILE_LIMIT) });
/** One JSON-RPC message of a relayed MCP server (a line of its stdio) is at most this long, each way. */
export const MCP_LINE_LIMIT = 8 * 1024 * 1024;
const relayIdSchema = z.string().min(1).max(64);

/** What the gateway asks a machine to start for an MCP stdio server configured there (DESIGN §10b): the config's own fields. */
export const mcpStartSpecSchema = z.object({
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(4096)).max(256),
  /** Literal values; `${NAME}` is read from the machine's environment, never the gateway's. */
  env: z.record(z.string().max(256), z.string().max(16 * 1024)),
  /** Child variable → a variable of the machine's own environment. */
  envFrom: z.record(z.string().max(256), z.string().max(256)),
  cwd: z.string().max(4096).optional(),
  sandbox: z.union([z.literal("off"), z.object({ network: z.boolean().optional(), writable: z.array(z.string().max(4096)).max(64).optional() })]).optional(),
});
export type McpStartSpec = z.infer<typeof mcpStartSpecSchema>;

export type ProjectSkillFile = z.infer<typeof projectSkillSchema>;
export type ProjectAgentFile = z.infer<typeof projectAgentSchema>;

export const machineMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    protocol: z.number().int(),
    name: z.string().max(64).nullable(),
    hostname: z.string().max(255),
    platform: z.string().max(64),
    roots: z.array(z.string().max(4096)).max(64),
    sandbox: z.string().max(64),
  }),
  z.object({ type: z.literal("output"), callId: z.string(), delta: z.string() }),
  z.object({ type: z.literal("result"), callId: z.string(), result: toolResultSchema }),
  z.object({
    type: z.literal("cwd_checked"),
    requestId: z.string(),
    path: z.string().nullable(),
    error: z.enum(["missing_cwd", "cwd_outside_roots"]).nullable(),
    message: z.string().nullable(),
  }),
  z.object({
    type: z.literal("project"),
    requestId: z.string(),
    agentsFile: z.string().nullable(),
    /** `.atrium/skills/<name>/SKILL.md` of the cwd, each with the files beside it. */
    skills: z.array(projectSkillSchema).max(PROJECT_ENTRIES_LIMIT).default([]),
    /** `.atrium/agents/*.md` of the cwd. */
    agents: z.array(projectAgentSchema).max(PROJECT_ENTRIES_LIMIT).default([]),
  }),
  z.object({ type: z.literal("snapshot_done"), requestId: z.string(), result: z.unknown().optional(), error: z.string().nullable() }),
  /** A line the relayed MCP server wrote to stdout (one JSON-RPC message), as is: the gateway parses it. */
  z.object({ type: z.literal("mcp_line"), relayId: relayIdSchema, line: z.string().max(MCP_LINE_LIMIT) }),
  z.object({ type: z.literal("mcp_stderr"), relayId: relayIdSchema, line: z.string().max(4096) }),
  /** The server process is gone (or never started): why, and how it ran. */
  z.object({
    type: z.literal("mcp_exit"),
    relayId: relayIdSchema,
    reason: z.string().max(4096),
    sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
  }),
  z.object({ type: z.literal("mcp_started"), relayId: relayIdSchema, sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]) }),
]);
export type MachineMessage = z.infer<typeof machineMessageSchema>;

export const gatewayMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("welcome"), machineId: z.string(), name: z.string(), roots: z.array(z.string()) }),
  z.object({ type: z.literal("call"), callId: z.string(), tool: z.string(), input: z.unknown(), cwd: z.string() }),
  z.object({ type: z.literal("cancel"), callId: z.string() }),
  z.object({ type: z.literal("check_cwd"), requestId: z.string(), cwd: z.string() }),
  /** The project files the gateway puts in each request (DESIGN §4), read from the machine's cwd. */
  z.object({ type: z.literal("read_project"), requestId: z.string(), cwd: z.string() }),
  /** Checkpoints of the machine's cwd: the snapshot git dirs live on the machine (its own data directory). */
  z.object({
    type: z.literal("snapshot_op"),
    requestId: z.string(),
    op: z.enum(["snapshot", "changes", "changed_paths", "restore"]),
    cwd: z.string(),
    from: z.string().optional(),
    to: z.string().optional(),
    paths: z.array(z.string()).optional(),
    /** `changes`: lines of context in the diff (an older machine ignores it and sends git's default 3). */
    context: z.number().int().nonnegative().optional(),
  }),
  /** Start an MCP stdio server on the machine, in its sandbox and roots; its stdio is relayed as mcp_send / mcp_line. */
  z.object({ type: z.literal("mcp_start"), relayId: relayIdSchema, spec: mcpStartSpecSchema }),
  z.object({ type: z.literal("mcp_send"), relayId: relayIdSchema, line: z.string().max(MCP_LINE_LIMIT) }),
  z.object({ type: z.literal("mcp_stop"), relayId: relayIdSchema }),
]);
export type GatewayMessage = z.infer<typeof gatewayMessageSchema>;

/** Parses one text frame; null when it is not JSON or not a message of this protocol. */
export function parseFrame<T>(schema: z.ZodType<T>, data: unknown): T | null {
  let value: unknown;
  try {
    value = JSON.parse(String(data));
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
