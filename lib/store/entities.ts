import { z } from "zod";
import { effortSchema, itemKindSchema, itemStatusSchema, turnStatusSchema, waitingModeSchema } from "./records";

/**
 * The API's shapes of what the store holds (DESIGN §8), read from the index. lib/events/entities
 * re-exports them: events, route handlers and the OpenAPI doc share them.
 */

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
  effort: effortSchema,
  cwd: z.string(),
  /** Where its machine work runs (DESIGN §10b): `local` or a linked machine's id; the record's `executor`. */
  machine: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  forkedFrom: z.object({ conversationId: z.string(), itemId: z.string().nullable() }).nullable(),
  /** A restart: the parent's message it restarts (forkedFrom names the parent); null for a fork or an original. */
  restartOf: z.string().nullable().optional(),
  objective: objectiveSchema.nullable(),
  rootSessionId: z.string(),
  titleSource: z.enum(["auto", "owner"]),
  /** What is missing on this machine after a move (DESIGN §2); empty when nothing is. */
  missing: z.array(z.enum(["cwd", "model", "agent", "machine"])),
  /**
   * DESIGN §10c: on a node of a cluster, the node holding its lease; null when none holds it, and
   * on a single server. Set in every conversation the API's requests answer; an event may leave it
   * out (a list event about another node's conversation, whose holder this node has not asked).
   */
  node: z.string().nullable().optional(),
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
  kind: itemKindSchema,
  status: itemStatusSchema,
  text: z.string().optional(),
  toolName: z.string().optional(),
  toolCallId: z.string().optional(),
  input: z.unknown().optional(),
  output: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  /** How a tool process ran: confined by "bwrap" or "sandbox-exec", or not ("off", "unavailable"). */
  sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
  /** Tool calls run without asking because of an "always allow in this project" rule. */
  allowedBy: z.object({ ruleId: z.string(), tool: z.string(), commandPrefix: z.string().nullable() }).optional(),
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
  status: turnStatusSchema,
  model: z.string(),
  effort: effortSchema,
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
  mode: waitingModeSchema,
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
