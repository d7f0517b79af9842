import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The SQLite index: a cache of the JSONL files, always rebuildable by `atrium reindex`.
 * The full-text table (search_fts) is created by a custom migration: drizzle has no FTS5 type.
 */

export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    title: text("title").notNull(),
    titleSource: text("title_source").notNull(),
    agent: text("agent").notNull(),
    model: text("model").notNull(),
    effort: text("effort"),
    cwd: text("cwd").notNull(),
    executor: text("executor").notNull(),
    rootSessionId: text("root_session_id").notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    protected: integer("protected", { mode: "boolean" }).notNull().default(false),
    status: text("status").notNull().default("idle"),
    forkedFromConversationId: text("forked_from_conversation_id"),
    forkedFromItemId: text("forked_from_item_id"),
    restartOfItemId: text("restart_of_item_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    metadataSeq: integer("metadata_seq").notNull().default(0),
    metadataBytes: integer("metadata_bytes").notNull().default(0),
  },
  // conversations_recent serves archived=all in recency order without sorting the whole table.
  (table) => [index("conversations_updated").on(table.archived, table.updatedAt), index("conversations_recent").on(table.updatedAt)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    parentSessionId: text("parent_session_id"),
    agent: text("agent").notNull(),
    model: text("model").notNull(),
    depth: integer("depth").notNull().default(0),
    status: text("status").notNull().default("idle"),
    createdAt: text("created_at").notNull(),
    fileSeq: integer("file_seq").notNull().default(0),
    fileBytes: integer("file_bytes").notNull().default(0),
  },
  (table) => [index("sessions_conversation").on(table.conversationId)],
);

export const turns = sqliteTable(
  "turns",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    sessionId: text("session_id").notNull(),
    status: text("status").notNull(),
    model: text("model").notNull(),
    effort: text("effort"),
    startedAt: text("started_at").notNull(),
    endedAt: text("ended_at"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    inputMessageIds: text("input_message_ids").notNull().default("[]"),
  },
  (table) => [
    index("turns_conversation").on(table.conversationId, table.startedAt),
    index("turns_status").on(table.status),
  ],
);

export const items = sqliteTable(
  "items",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    sessionId: text("session_id").notNull(),
    seq: integer("seq").notNull(),
    turnId: text("turn_id"),
    kind: text("kind").notNull(),
    status: text("status").notNull(),
    text: text("text"),
    toolName: text("tool_name"),
    toolCallId: text("tool_call_id"),
    input: text("input"),
    output: text("output"),
    exitCode: integer("exit_code"),
    sandbox: text("sandbox"),
    allowedBy: text("allowed_by"),
    artifactId: text("artifact_id"),
    origin: text("origin"),
    fromSessionId: text("from_session_id"),
    attachments: text("attachments"),
    providerMetadata: text("provider_metadata"),
    createdAt: text("created_at").notNull(),
  },
  (table) => [
    index("items_session_seq").on(table.sessionId, table.seq),
    index("items_conversation").on(table.conversationId),
  ],
);

export const waiting = sqliteTable(
  "waiting",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    sessionId: text("session_id").notNull(),
    text: text("text").notNull(),
    mode: text("mode").notNull(),
    origin: text("origin").notNull(),
    fromSessionId: text("from_session_id"),
    attachments: text("attachments"),
    position: integer("position").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [index("waiting_conversation").on(table.conversationId, table.position)],
);

export const approvals = sqliteTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    sessionId: text("session_id").notNull(),
    turnId: text("turn_id").notNull(),
    itemId: text("item_id").notNull(),
    toolName: text("tool_name").notNull(),
    input: text("input"),
    status: text("status").notNull(),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
  },
  (table) => [index("approvals_status").on(table.status, table.createdAt)],
);

export const questions = sqliteTable("questions", {
  id: text("id").primaryKey(),
  conversationId: text("conversation_id").notNull(),
  sessionId: text("session_id").notNull(),
  turnId: text("turn_id").notNull(),
  itemId: text("item_id").notNull(),
  question: text("question").notNull(),
  choices: text("choices").notNull().default("[]"),
  status: text("status").notNull(),
  answer: text("answer"),
  createdAt: text("created_at").notNull(),
});

export const objectives = sqliteTable("objectives", {
  id: text("id").primaryKey(),
  conversationId: text("conversation_id").notNull(),
  text: text("text").notNull(),
  status: text("status").notNull(),
  slices: integer("slices").notNull().default(0),
  sliceLimit: integer("slice_limit").notNull(),
  reason: text("reason"),
  listener: text("listener"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const compactions = sqliteTable("compactions", {
  itemId: text("item_id").primaryKey(),
  conversationId: text("conversation_id").notNull(),
  sessionId: text("session_id").notNull(),
  at: text("at").notNull(),
  tokensBefore: integer("tokens_before").notNull(),
  tokensAfter: integer("tokens_after").notNull(),
  firstKeptItemId: text("first_kept_item_id"),
});

/** requestKey memory (DESIGN §8). scope is the conversation id, or "" for creations. */
export const requestKeys = sqliteTable(
  "request_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    hash: text("hash").notNull(),
    response: text("response").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.key] })],
);
