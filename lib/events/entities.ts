import { z } from "zod";

/** The API's entity shapes (DESIGN §8). Events, route handlers and the OpenAPI doc share them. */

export const conversationStatusSchema = z.enum(["idle", "running", "waiting"]);

export const objectiveSchema = z.object({
  id: z.string(),
  text: z.string(),
  status: z.enum(["open", "paused", "waiting_event", "completed", "blocked", "cancelled"]),
  slices: z.number().int(),
  sliceLimit: z.number().int(),
  reason: z.string().nullable(),
});
export type Objective = z.infer<typeof objectiveSchema>;

export const conversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: conversationStatusSchema,
  archived: z.boolean(),
  protected: z.boolean(),
  agent: z.string(),
  model: z.string(),
  effort: z.enum(["low", "medium", "high"]).nullable(),
  cwd: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  forkedFrom: z.object({ conversationId: z.string(), itemId: z.string().nullable() }).nullable(),
  objective: objectiveSchema.nullable(),
  rootSessionId: z.string(),
  titleSource: z.enum(["auto", "owner"]),
  /** What is missing on this machine after a move (DESIGN §2); empty when nothing is. */
  missing: z.array(z.enum(["cwd", "model", "agent"])),
});
export type Conversation = z.infer<typeof conversationSchema>;

export const sessionSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  parentSessionId: z.string().nullable(),
  agent: z.string(),
  model: z.string(),
  status: conversationStatusSchema,
  depth: z.number().int(),
  createdAt: z.string(),
});
export type Session = z.infer<typeof sessionSchema>;

export const attachmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  bytes: z.number().int(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

export const itemSchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  sessionId: z.string(),
  turnId: z.string().nullable(),
  kind: z.enum([
    "user_message",
    "assistant_message",
    "reasoning",
    "tool_call",
    "notice",
    "compaction_summary",
    "subagent_report",
  ]),
  status: z.enum(["streaming", "completed", "failed", "interrupted", "denied", "waiting", "unknown"]),
  text: z.string().optional(),
  toolName: z.string().optional(),
  toolCallId: z.string().optional(),
  input: z.unknown().optional(),
  output: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  /** How a tool process ran: confined by "bwrap" or "sandbox-exec", or not ("off", "unavailable"). */
  sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
  artifactId: z.string().optional(),
  origin: z.string().optional(),
  fromSessionId: z.string().optional(),
  attachments: z.array(attachmentSchema).optional(),
  providerMetadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
});
export type Item = z.infer<typeof itemSchema>;

export const turnSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  sessionId: z.string(),
  status: z.enum(["running", "waiting_approval", "waiting_user", "completed", "failed", "interrupted"]),
  model: z.string(),
  effort: z.enum(["low", "medium", "high"]).nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
  inputMessageIds: z.array(z.string()),
});
export type Turn = z.infer<typeof turnSchema>;

export const waitingSchema = z.object({
  id: z.string(),
  text: z.string(),
  mode: z.enum(["steer", "queue", "jump"]),
  createdAt: z.string(),
  sessionId: z.string(),
  origin: z.string(),
});
export type Waiting = z.infer<typeof waitingSchema>;

export const approvalSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  sessionId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  status: z.enum(["pending", "approved", "denied"]),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
});
export type Approval = z.infer<typeof approvalSchema>;

export const questionSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  sessionId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  question: z.string(),
  choices: z.array(z.string()),
  status: z.enum(["pending", "answered", "cancelled"]),
  answer: z.string().nullable(),
});
export type Question = z.infer<typeof questionSchema>;

export const agentSchema = z.object({
  name: z.string(),
  description: z.string(),
  model: z.string().nullable(),
  tools: z.array(z.string()).nullable(),
});
export type Agent = z.infer<typeof agentSchema>;

/** GET /api/tools (DESIGN §8): built-in and MCP tools with their approval, skills, MCP servers and their status. */
export const toolsOverviewSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string(),
      source: z.enum(["builtin", "mcp"]),
      server: z.string().optional(),
      approval: z.enum(["auto", "ask", "deny"]),
      description: z.string(),
    }),
  ),
  skills: z.array(z.object({ name: z.string(), description: z.string(), source: z.enum(["home", "project"]), path: z.string() })),
  mcpServers: z.array(
    z.object({
      name: z.string(),
      transport: z.enum(["stdio", "http"]),
      status: z.enum(["connected", "starting", "failed"]),
      error: z.string().nullable(),
      toolCount: z.number().int(),
      approval: z.enum(["auto", "ask", "deny"]),
    }),
  ),
  sandbox: z.object({
    mode: z.enum(["workspace-write", "read-only", "off"]),
    network: z.boolean(),
    writable: z.array(z.string()),
    backend: z.enum(["bwrap", "sandbox-exec"]).nullable(),
    active: z.boolean(),
  }),
});
export type ToolsOverview = z.infer<typeof toolsOverviewSchema>;

export const modelInfoSchema = z.object({
  id: z.string(),
  provider: z.string(),
  contextWindow: z.number().int(),
  maxOutputTokens: z.number().int(),
  effort: z.boolean(),
  notice: z.string().nullable(),
  available: z.boolean(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

export const timelineEntrySchema = z.object({
  kind: z.enum(["model_call", "retry", "tool_call", "compaction", "steer", "approval", "question"]),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  status: z.string(),
  name: z.string().optional(),
  itemId: z.string().optional(),
  /** Tool calls: how the tool process ran (Item.sandbox), once it ended. */
  sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
});
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

export const contextSchema = z.object({
  contextWindow: z.number().int(),
  maxOutputTokens: z.number().int(),
  threshold: z.number().int(),
  usedTokens: z.number().int(),
  source: z.enum(["reported", "estimate"]),
  roomTokens: z.number().int(),
  totalTokens: z.object({ input: z.number().int(), output: z.number().int() }),
  lastCompaction: z
    .object({ itemId: z.string(), at: z.string(), tokensBefore: z.number().int(), tokensAfter: z.number().int() })
    .nullable(),
  /** Tokens the discovery catalogs take in each request: skills, and MCP tools beyond the tool budget. */
  catalogTokens: z.object({ skills: z.number().int(), tools: z.number().int() }).optional(),
  /** OpenAI reasoning models: the configured reasoning context and the one the provider reported applying. */
  reasoningContext: z
    .object({ configured: z.enum(["all_turns", "current_turn"]), applied: z.enum(["all_turns", "current_turn"]).nullable() })
    .nullable(),
});
export type ContextInfo = z.infer<typeof contextSchema>;
