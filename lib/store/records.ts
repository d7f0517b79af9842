import { z } from "zod";
import { idSchema } from "./id-schema";

/**
 * Every JSONL line Atrium writes (DESIGN §2). The schemas are the only way a line
 * read back from disk becomes a typed value.
 */

export const effortSchema = z.enum(["low", "medium", "high"]).nullable();
export type Effort = z.infer<typeof effortSchema>;

export const itemKindSchema = z.enum([
  "user_message",
  "assistant_message",
  "reasoning",
  "tool_call",
  "notice",
  "compaction_summary",
  "subagent_report",
]);
export type ItemKind = z.infer<typeof itemKindSchema>;

export const itemStatusSchema = z.enum([
  "streaming",
  "completed",
  "failed",
  "interrupted",
  "denied",
  "waiting",
  "unknown",
]);
export type ItemStatus = z.infer<typeof itemStatusSchema>;

export const turnStatusSchema = z.enum([
  "running",
  "waiting_approval",
  "waiting_user",
  "completed",
  "failed",
  "interrupted",
]);
export type TurnStatus = z.infer<typeof turnStatusSchema>;

export const waitingModeSchema = z.enum(["steer", "queue", "jump"]);
export type WaitingMode = z.infer<typeof waitingModeSchema>;

export const messageOriginSchema = z.enum(["owner", "objective", "subagent", "parent", "webhook"]);
export type MessageOrigin = z.infer<typeof messageOriginSchema>;

export const attachmentRefSchema = z.object({
  id: idSchema,
  name: z.string(),
  mediaType: z.string(),
  bytes: z.number().int().nonnegative(),
});
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;

export const storedItemSchema = z.object({
  id: idSchema,
  sessionId: idSchema,
  turnId: idSchema.nullable(),
  kind: itemKindSchema,
  status: itemStatusSchema,
  text: z.string().optional(),
  toolName: z.string().optional(),
  toolCallId: z.string().optional(),
  input: z.unknown().optional(),
  output: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  artifactId: idSchema.optional(),
  origin: messageOriginSchema.optional(),
  fromSessionId: idSchema.optional(),
  attachments: z.array(attachmentRefSchema).optional(),
  /** Provider data a reasoning item needs to be sent back (item ids, encrypted content). */
  providerMetadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
});
export type StoredItem = z.infer<typeof storedItemSchema>;

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const turnErrorSchema = z.object({ code: z.string(), message: z.string() });
export type TurnError = z.infer<typeof turnErrorSchema>;

/** `restartOf`: a restart ("Restart from here") names the parent's message it restarts; a plain fork has none. */
export const forkedFromSchema = z.object({ conversationId: idSchema, itemId: idSchema.nullable(), restartOf: idSchema.optional() });

const requestKeyFields = {
  requestKey: z.string().max(200).optional(),
  requestHash: z.string().optional(),
};

const base = { v: z.literal(1), seq: z.number().int().positive(), at: z.string() };

export const metadataRecordSchema = z.discriminatedUnion("type", [
  z.object({
    ...base,
    type: z.literal("conversation.created"),
    conversationId: idSchema,
    title: z.string(),
    titleSource: z.enum(["auto", "owner"]),
    agent: z.string(),
    model: z.string(),
    effort: effortSchema,
    cwd: z.string(),
    executor: z.string(),
    rootSessionId: idSchema,
    forkedFrom: forkedFromSchema.nullable().optional(),
    protected: z.boolean().optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("conversation.updated"),
    title: z.string().optional(),
    titleSource: z.enum(["auto", "owner"]).optional(),
    archived: z.boolean().optional(),
    protected: z.boolean().optional(),
    model: z.string().optional(),
    effort: effortSchema.optional(),
    cwd: z.string().optional(),
    /** The conversation moved to another machine (PATCH {machine, cwd}, DESIGN §10b). */
    executor: z.string().optional(),
  }),
  z.object({ ...base, type: z.literal("conversation.deleted"), conversationId: idSchema }),
  z.object({
    ...base,
    type: z.literal("session.created"),
    sessionId: idSchema,
    agent: z.string(),
    model: z.string(),
    parentSessionId: idSchema.nullable().optional(),
    spawnedBy: idSchema.nullable().optional(),
    depth: z.number().int().nonnegative().optional(),
    /** A fork's or restart's root session: its origin's context calibration (SessionState.calibration). */
    contextCalibration: z.number().positive().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("turn.started"),
    turnId: idSchema,
    sessionId: idSchema,
    model: z.string(),
    effort: effortSchema,
    inputMessageIds: z.array(idSchema),
    /** RecordProofs.turnStarted: this data directory started the turn (absent or foreign: not trusted to run). */
    proof: z.string().optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("turn.ended"),
    turnId: idSchema,
    status: z.enum(["completed", "failed", "interrupted"]),
    error: turnErrorSchema.nullable().optional(),
    usage: usageSchema,
    /** The session's context calibration when the turn ended (SessionState.calibration). */
    contextCalibration: z.number().positive().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("queue.added"),
    messageId: idSchema,
    sessionId: idSchema,
    text: z.string(),
    mode: waitingModeSchema,
    origin: messageOriginSchema,
    fromSessionId: idSchema.optional(),
    attachments: z.array(attachmentRefSchema).optional(),
    /** For a steer: the running turn it joined, so a repeated request answers the same. */
    turnId: idSchema.optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("queue.updated"),
    messageId: idSchema,
    text: z.string().optional(),
    mode: waitingModeSchema.optional(),
    /** With a mode: the running turn a message switched to steer joins (null: none), as queue.added's turnId. */
    turnId: idSchema.nullable().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("queue.removed"),
    messageId: idSchema,
    reason: z.enum(["withdrawn", "started", "steered"]),
  }),
  z.object({
    ...base,
    type: z.literal("approval.requested"),
    approvalId: idSchema,
    sessionId: idSchema,
    turnId: idSchema,
    itemId: idSchema,
    toolName: z.string(),
    input: z.unknown(),
    /** The turn's usage so far: a turn resumed after a restart keeps its model calls before the park. */
    usage: usageSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal("approval.decided"),
    approvalId: idSchema,
    decision: z.enum(["approve", "deny"]),
    /** RecordProofs.decision: an approve without a proof that verifies here authorizes nothing. */
    proof: z.string().optional(),
    /** Why it was settled without the owner: e.g. `imported`, `turn_ended`. */
    reason: z.string().optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("question.asked"),
    questionId: idSchema,
    sessionId: idSchema,
    turnId: idSchema,
    itemId: idSchema,
    question: z.string(),
    choices: z.array(z.string()),
    /** The turn's usage so far, as on approval.requested. */
    usage: usageSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal("question.answered"),
    questionId: idSchema,
    answer: z.string(),
    /** The turn ended before the owner answered. */
    cancelled: z.boolean().optional(),
    reason: z.string().optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("objective.opened"),
    objectiveId: idSchema,
    text: z.string(),
    sliceLimit: z.number().int().positive(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("objective.updated"),
    objectiveId: idSchema,
    status: z.enum(["open", "paused", "waiting_event", "completed", "blocked", "cancelled"]).optional(),
    slices: z.number().int().nonnegative().optional(),
    reason: z.string().nullable().optional(),
    listener: z.unknown().optional(),
    ...requestKeyFields,
  }),
  z.object({
    ...base,
    type: z.literal("compaction"),
    sessionId: idSchema,
    itemId: idSchema,
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    firstKeptItemId: idSchema.nullable(),
  }),
  // A snapshot of the cwd (lib/checkpoints): at a turn's start, after a tool that can change
  // files, and around a rewind that restored files. Not indexed; read from this log.
  z.object({
    ...base,
    type: z.literal("checkpoint"),
    turnId: idSchema.nullable(),
    itemId: idSchema.nullable(),
    cwd: z.string(),
    tree: z.string().regex(/^[0-9a-f]{40}$/),
    reason: z.enum(["turn_start", "tool", "before_restore", "after_restore"]),
    /** When the snapshot was taken, if not `at`: a fork's copy of its parent's record keeps the original time. */
    takenAt: z.string().optional(),
  }),
]);
export type MetadataRecord = z.infer<typeof metadataRecordSchema>;

export const sessionRecordSchema = z.discriminatedUnion("type", [
  z.object({ ...base, type: z.literal("item.created"), item: storedItemSchema }),
  z.object({ ...base, type: z.literal("item.progress"), itemId: idSchema, text: z.string() }),
  z.object({
    ...base,
    type: z.literal("item.completed"),
    itemId: idSchema,
    status: itemStatusSchema,
    text: z.string().optional(),
    output: z.string().optional(),
    exitCode: z.number().int().nullable().optional(),
    sandbox: z.enum(["bwrap", "sandbox-exec", "off", "unavailable"]).optional(),
    /** The "always allow" rule that let this call run without asking (DESIGN §6). */
    allowedBy: z.object({ ruleId: z.string(), tool: z.string(), commandPrefix: z.string().nullable() }).optional(),
    artifactId: idSchema.optional(),
    providerMetadata: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

type Body<R> = R extends unknown ? Omit<R, "v" | "seq" | "at"> : never;
/** A record as the caller hands it to the appender: the appender stamps v, seq and at. */
export type MetadataRecordBody = Body<MetadataRecord>;
export type SessionRecordBody = Body<SessionRecord>;
