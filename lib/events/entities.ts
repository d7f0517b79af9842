import { z } from "zod";

/** The API's entity shapes (DESIGN §8). Events, route handlers and the OpenAPI doc share them; those the store holds are defined there. */

export {
  conversationStatusSchema,
  objectiveSchema,
  type Objective,
  conversationSchema,
  type Conversation,
  sessionSchema,
  type Session,
  attachmentSchema,
  type Attachment,
  itemSchema,
  type Item,
  turnSchema,
  type Turn,
  waitingSchema,
  type Waiting,
  approvalSchema,
  type Approval,
  questionSchema,
  type Question,
} from "../store/entities";
export { itemKindSchema, itemStatusSchema, type ItemKind, type ItemStatus } from "../store/records";

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
      /** The machine it runs on (DESIGN §10b), by name; null: the gateway's host. */
      machine: z.string().nullable(),
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
  /** What the model takes as image or file parts (config `attachments`, else its provider's default); anything else is described in text. */
  attachments: z.array(z.enum(["image", "pdf"])).optional(),
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
  /** Reported ÷ estimated input at the provider's last report, which every estimate is scaled by; null: no report yet. */
  calibration: z.number().nullable().optional(),
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
