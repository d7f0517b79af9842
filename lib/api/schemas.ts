import { z } from "zod";
import { idSchema } from "../store/id-schema";
import { machineNameSchema } from "../machines/machine-schema";

/** Request shapes of the HTTP API (DESIGN §8), shared by route handlers, server actions and the OpenAPI doc. */

const requestKey = z.string().min(1).max(200).optional();
const effort = z.enum(["low", "medium", "high"]).nullable();
const text = z.string().max(200_000);

const attachmentIds = z.array(idSchema).max(20).optional();

export const createConversationBody = z.object({
  text,
  attachments: attachmentIds,
  agent: z.string().min(1).max(64).optional(),
  model: z.string().min(1).max(200).optional(),
  effort: effort.optional(),
  cwd: z.string().min(1).max(4096).optional(),
  machine: z.string().min(1).max(64).optional(),
  requestKey,
});

export const updateConversationBody = z
  .object({
    title: z.string().max(200).optional(),
    archived: z.boolean().optional(),
    protected: z.boolean().optional(),
    model: z.string().min(1).max(200).optional(),
    effort: effort.optional(),
    cwd: z.string().min(1).max(4096).optional(),
    machine: z.string().min(1).max(64).optional(),
    requestKey,
  })
  .strict();

export const addMachineBody = z.object({
  name: machineNameSchema,
  roots: z.array(z.string().min(1).max(4096).refine((root) => root.startsWith("/"), "a root must be an absolute path")).max(64).optional(),
  requestKey,
});

export const forkBody = z.object({ throughItemId: idSchema.optional(), requestKey });
export const rewindBody = z.object({
  itemId: idSchema,
  /** Also put the files changed since that message back to how they were before it. */
  restoreFiles: z.boolean().optional(),
  /** Restore even over files changed outside Atrium since the agent's last checkpoint. */
  force: z.boolean().optional(),
  requestKey,
});
export const rewindPreviewQuery = z.strictObject({ itemId: idSchema });
export const turnChangesQuery = z.strictObject({
  item: idSchema.optional(),
  /** Lines of context around each change in the diff (default 3); a large number shows whole files. */
  context: z.coerce.number().int().min(0).max(1_000_000).optional(),
});
/** POST /api/turns/:id/revert */
export const revertFileBody = z.strictObject({
  /** A path the turn changed, relative to the conversation's folder, as the turn's changes list it. */
  path: z.string().min(1).max(4096),
  /** Revert even when the file changed outside Atrium since the agent's last checkpoint. */
  force: z.boolean().optional(),
});

const changedFile = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
/** GET /api/turns/:id/changes */
export const turnChangesResponse = z.object({
  files: z.array(changedFile),
  diff: z.string(),
  items: z.array(z.object({ itemId: idSchema, paths: z.array(z.string()) })).optional(),
});

export const sendMessageBody = z.object({
  text,
  attachments: attachmentIds,
  mode: z.enum(["auto", "steer", "queue", "jump"]).default("auto"),
  session: idSchema.optional(),
  requestKey,
});

export const updateWaitingBody = z
  .object({ text: text.optional(), mode: z.enum(["steer", "queue", "jump"]).optional(), requestKey })
  .refine((body) => body.text !== undefined || body.mode !== undefined, "give text or mode");

export const interruptBody = z.object({ session: idSchema.optional(), requestKey });
/** `remember` (with approve): "always allow in this project" — the tool, and for shell optionally a command prefix (DESIGN §6). */
export const rememberRule = z.strictObject({ tool: z.string().min(1).max(200), commandPrefix: z.string().trim().min(1).max(500).optional() });
export const decisionBody = z.object({ decision: z.enum(["approve", "deny"]), remember: rememberRule.optional(), requestKey });
export const answerBody = z.object({ text: z.string().max(20_000), requestKey });

/** Whole numbers as query strings: at most 15 digits, so they stay exact doubles and SQLite integers. */
const integerParam = (minimum: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(minimum));

/** Query schemas are strict: a misspelt parameter is a 400 naming it, not a silently ignored filter. */
export const listConversationsQuery = z.strictObject({
  archived: z.enum(["true", "false", "all"]).default("false"),
  q: z.string().max(500).optional(),
  cursor: z.string().regex(/^\d{1,15}$/, "is not a cursor this server gave").optional(),
  limit: integerParam(1).optional(),
  sort: z.enum(["updated", "created", "title", "model"]).optional(),
  direction: z.enum(["asc", "desc"]).optional(),
  model: z.string().max(200).optional(),
});

/** One way of paging at a time: after (the default), before, tail or around; q pages its hits with after, before or tail. */
export const listItemsQuery = z.strictObject({
  session: idSchema.optional(),
  after: integerParam(0).optional(),
  limit: integerParam(1).optional(),
  before: integerParam(1).optional().describe("The items just before this seq, in seq order; nextCursor is then the value to pass as before for the page further back (null at the start)"),
  tail: z.enum(["true"]).optional().describe("The latest page, in seq order; nextCursor as with before"),
  around: idSchema.optional().describe("A page centred on this item; nextCursor continues forward (as after) and previousCursor backward (as before), each null at its end"),
  q: z.string().trim().min(1).max(200).optional().describe("Only the messages whose text matches these words (prefixes), in seq order, paged with after, before or tail; total counts every match"),
});

/** Find in a conversation: the newest hits first, paged backward with before. */
export const findItemsQuery = z.strictObject({
  q: z.string().trim().min(1).max(200).describe("The text to find: case and accents ignored, any white space matching any white space"),
  session: idSchema.optional(),
  before: integerParam(1).optional().describe("Only hits before this seq (nextCursor of the previous page)"),
  limit: integerParam(1).optional().describe("Hits per page, default 500, at most 2000"),
});

export const artifactQuery = z.strictObject({ page: z.string().regex(/^[1-9]\d{0,8}$/, "must be a page number from 1").transform(Number).optional() });
export const conversationEventsQuery = z.strictObject({ session: idSchema.optional(), lastEventId: z.string().regex(/^\d{1,15}$/, "must be an event id").optional() });

export const approvalsQuery = z.strictObject({ status: z.enum(["pending", "approved", "denied"]).optional() });

/** GET /api/tools?cwd=: a project's `.atrium/skills` beside the home ones; default the configured defaultCwd. */
export const toolsQuery = z.strictObject({
  cwd: z.string().refine((value) => value.startsWith("/"), "cwd must be an absolute path").optional(),
  /** Whose project: its skills are read on that machine (DESIGN §10b). */
  machine: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "machine must be a machine id").optional(),
});

export const objectiveBody = z.object({ text: z.string().max(500, "an objective is at most 500 characters"), requestKey });
export const objectivePatchBody = z.object({
  status: z.enum(["open", "paused", "completed", "blocked", "cancelled"]),
  note: z.string().max(2000).optional(),
  requestKey,
});

export const questionsQuery = z.strictObject({
  status: z.enum(["pending", "answered", "cancelled"]).optional(),
  conversation: idSchema.optional(),
});

export const projectsQuery = z.strictObject({
  machine: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "machine must be a machine id").optional(),
  /** Only the folders this agent's conversations were held in, by its last use there. */
  agent: z.string().min(1).max(64).optional(),
});
/** GET /api/folders */
export const foldersQuery = z.strictObject({
  machine: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "machine must be a machine id").default("local"),
  path: z.string().min(1).max(4096).optional(),
});

export const approvalRulesQuery = z.strictObject({
  machine: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "machine must be a machine id").optional(),
  path: z.string().refine((value) => value.startsWith("/"), "path must be an absolute path").optional(),
});
