import type { StoredItem } from "./records";
import type Database from "better-sqlite3";

/** The IndexWriter's statements, prepared once per connection: preparing costs more than most of them take to run. */
export type IndexStatements = ReturnType<typeof prepareIndexStatements>;

/** Tables whose rows belong to one conversation, by `conversation_id`. */
const CONVERSATION_TABLES = ["items", "turns", "sessions", "waiting", "approvals", "questions", "objectives", "compactions"] as const;

export function prepareIndexStatements(client: Database.Database) {
  return {
    ...conversationStatements(client),
    ...turnStatements(client),
    ...itemStatements(client),
    ...keyStatements(client),
  };
}

/** Conversations and sessions: their rows, file progress and running/waiting status. */
function conversationStatements(client: Database.Database) {
  const statusOf = (filter: string) => `
    CASE
      WHEN EXISTS (SELECT 1 FROM turns WHERE ${filter} AND status = 'running') THEN 'running'
      WHEN EXISTS (SELECT 1 FROM turns WHERE ${filter} AND status IN ('waiting_approval', 'waiting_user')) THEN 'waiting'
      ELSE 'idle'
    END`;
  return {
    insertConversation: client.prepare(`
      INSERT OR REPLACE INTO conversations (id, title, title_source, agent, model, effort, cwd, executor,
        root_session_id, archived, protected, status, forked_from_conversation_id, forked_from_item_id,
        restart_of_item_id, created_at, updated_at, metadata_seq, metadata_bytes)
      VALUES (@id, @title, @titleSource, @agent, @model, @effort, @cwd, @executor, @rootSessionId, 0,
        @protected, 'idle', @forkedFromConversationId, @forkedFromItemId, @restartOfItemId, @at, @at, 0, 0)`),
    touchConversation: client.prepare(
      `UPDATE conversations SET updated_at = max(updated_at, @at) WHERE id = @id`,
    ),
    setMetadataProgress: client.prepare(
      `UPDATE conversations SET metadata_seq = @seq, metadata_bytes = @bytes WHERE id = @id`,
    ),
    deleteConversation: client.prepare(`DELETE FROM conversations WHERE id = ?`),
    conversationRow: client.prepare(`SELECT rowid, title FROM conversations WHERE id = ?`),
    insertSession: client.prepare(`
      INSERT OR REPLACE INTO sessions (id, conversation_id, parent_session_id, agent, model, depth, status,
        created_at, file_seq, file_bytes)
      VALUES (@id, @conversationId, @parentSessionId, @agent, @model, @depth, 'idle', @at,
        coalesce((SELECT file_seq FROM sessions WHERE id = @id), 0),
        coalesce((SELECT file_bytes FROM sessions WHERE id = @id), 0))`),
    setSessionProgress: client.prepare(`
      INSERT INTO sessions (id, conversation_id, agent, model, created_at, file_seq, file_bytes)
      VALUES (@id, '', '', '', '', @seq, @bytes)
      ON CONFLICT(id) DO UPDATE SET file_seq = @seq, file_bytes = @bytes`),
    refreshSessionStatus: client.prepare(
      `UPDATE sessions SET status = ${statusOf("session_id = @id")} WHERE id = @id`,
    ),
    refreshConversationStatus: client.prepare(
      `UPDATE conversations SET status = ${statusOf("conversation_id = @id")} WHERE id = @id`,
    ),
    deleteConversationRows: CONVERSATION_TABLES.map((table) =>
      client.prepare(`DELETE FROM ${table} WHERE conversation_id = ?`),
    ),
  };
}

/** Turns and what parks or feeds them: waiting messages, approvals, questions, objectives, compactions. */
function turnStatements(client: Database.Database) {
  return {
    // Positional parameters on the statements a rebuild runs per record: better-sqlite3 looks up
    // each named parameter by a fresh string, which cost more than the insert itself.
    /** (id, conversation_id, session_id, model, effort, started_at, input_message_ids) */
    insertTurn: client.prepare(`
      INSERT OR REPLACE INTO turns (id, conversation_id, session_id, status, model, effort, started_at,
        input_message_ids)
      VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`),
    /** (status, ended_at, error_code, error_message, input_tokens, output_tokens, id) */
    endTurn: client.prepare(`
      UPDATE turns SET status = ?, ended_at = ?, error_code = ?, error_message = ?, input_tokens = ?, output_tokens = ?
      WHERE id = ?`),
    setTurnStatus: client.prepare(`UPDATE turns SET status = @status WHERE id = @id AND ended_at IS NULL`),
    resumeTurn: client.prepare(`UPDATE turns SET status = 'running' WHERE id = @id AND ended_at IS NULL`),
    turnSession: client.prepare(`SELECT session_id FROM turns WHERE id = ?`),
    insertWaiting: client.prepare(`
      INSERT OR REPLACE INTO waiting (id, conversation_id, session_id, text, mode, origin, from_session_id,
        attachments, position, created_at)
      VALUES (@id, @conversationId, @sessionId, @text, @mode, @origin, @fromSessionId, @attachments,
        @position, @at)`),
    updateWaiting: client.prepare(
      `UPDATE waiting SET text = coalesce(@text, text), mode = coalesce(@mode, mode) WHERE id = @id`,
    ),
    deleteWaiting: client.prepare(`DELETE FROM waiting WHERE id = ?`),
    insertApproval: client.prepare(`
      INSERT OR REPLACE INTO approvals (id, conversation_id, session_id, turn_id, item_id, tool_name, input,
        status, created_at)
      VALUES (@id, @conversationId, @sessionId, @turnId, @itemId, @toolName, @input, 'pending', @at)`),
    decideApproval: client.prepare(
      `UPDATE approvals SET status = @status, decided_at = @at WHERE id = @id`,
    ),
    approvalTurn: client.prepare(`SELECT turn_id, session_id, item_id, tool_name, input FROM approvals WHERE id = ?`),
    insertQuestion: client.prepare(`
      INSERT OR REPLACE INTO questions (id, conversation_id, session_id, turn_id, item_id, question, choices,
        status, created_at)
      VALUES (@id, @conversationId, @sessionId, @turnId, @itemId, @question, @choices, 'pending', @at)`),
    answerQuestion: client.prepare(`UPDATE questions SET status = @status, answer = @answer WHERE id = @id`),
    questionTurn: client.prepare(`SELECT turn_id, session_id FROM questions WHERE id = ?`),
    insertObjective: client.prepare(`
      INSERT OR REPLACE INTO objectives (id, conversation_id, text, status, slices, slice_limit, created_at,
        updated_at)
      VALUES (@id, @conversationId, @text, 'open', 0, @sliceLimit, @at, @at)`),
    updateObjective: client.prepare(`
      UPDATE objectives SET status = coalesce(@status, status), slices = coalesce(@slices, slices),
        reason = CASE WHEN @reasonSet = 1 THEN @reason ELSE reason END,
        listener = CASE WHEN @listenerSet = 1 THEN @listener ELSE listener END,
        updated_at = @at WHERE id = @id`),
    insertCompaction: client.prepare(`
      INSERT OR REPLACE INTO compactions (item_id, conversation_id, session_id, at, tokens_before, tokens_after,
        first_kept_item_id)
      VALUES (@itemId, @conversationId, @sessionId, @at, @tokensBefore, @tokensAfter, @firstKeptItemId)`),
  };
}

/** Items and the full-text rows of items and titles. */
function itemStatements(client: Database.Database) {
  return {
    /** Positional, in the order of the column list. */
    insertItem: client.prepare(`
      INSERT OR REPLACE INTO items (id, conversation_id, session_id, seq, turn_id, kind, status, text, tool_name,
        tool_call_id, input, output, exit_code, artifact_id, origin, from_session_id, attachments, provider_metadata,
        created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // A tool call's progress is its output so far, and its first progress marks that it started running.
    progressItem: client.prepare(`
      UPDATE items SET
        text = CASE WHEN kind = 'tool_call' THEN text ELSE @text END,
        output = CASE WHEN kind = 'tool_call' THEN @text ELSE output END,
        status = CASE WHEN kind = 'tool_call' THEN 'streaming' ELSE status END
      WHERE id = @id`),
    completeItem: client.prepare(`
      UPDATE items SET status = @status, text = coalesce(@text, text), output = coalesce(@output, output),
        exit_code = coalesce(@exitCode, exit_code), sandbox = coalesce(@sandbox, sandbox), allowed_by = coalesce(@allowedBy, allowed_by), artifact_id = coalesce(@artifactId, artifact_id),
        provider_metadata = coalesce(@providerMetadata, provider_metadata)
      WHERE id = @id`),
    itemForSearch: client.prepare(`SELECT rowid, kind, text, conversation_id FROM items WHERE id = ?`),
    insertItemSearch: client.prepare(
      `INSERT INTO item_fts (rowid, text, conversation_id) VALUES (@rowid, @text, @conversationId)`,
    ),
    deleteOneItemSearch: client.prepare(`DELETE FROM item_fts WHERE rowid = ?`),
    deleteItemSearch: client.prepare(
      `DELETE FROM item_fts WHERE rowid IN (SELECT rowid FROM items WHERE conversation_id = ?)`,
    ),
    insertTitleSearch: client.prepare(`INSERT INTO title_fts (rowid, title) VALUES (@rowid, @title)`),
    deleteOneTitleSearch: client.prepare(`DELETE FROM title_fts WHERE rowid = ?`),
    deleteTitleSearch: client.prepare(
      `DELETE FROM title_fts WHERE rowid IN (SELECT rowid FROM conversations WHERE id = ?)`,
    ),
  };
}

/** Request keys: kept with what they created, dropped with their conversation. */
function keyStatements(client: Database.Database) {
  return {
    insertKeyIfMissing: client.prepare(`
      INSERT OR IGNORE INTO request_keys (scope, key, hash, response, created_at)
      VALUES (@scope, @key, @hash, @response, @at)`),
    deleteKeys: client.prepare(`DELETE FROM request_keys WHERE scope = ?`),
    deleteCreationKey: client.prepare(`DELETE FROM request_keys WHERE scope = '' AND json_extract(response, '$.conversationId') = ?`),
  };
}

/** The values of an items row, in the column order of `insertItem`. */
export function itemRowValues(conversationId: string, seq: number, item: StoredItem): unknown[] {
  return [
    item.id,
    conversationId,
    item.sessionId,
    seq,
    item.turnId,
    item.kind,
    item.status,
    item.text ?? null,
    item.toolName ?? null,
    item.toolCallId ?? null,
    item.input === undefined ? null : JSON.stringify(item.input),
    item.output ?? null,
    item.exitCode ?? null,
    item.artifactId ?? null,
    item.origin ?? null,
    item.fromSessionId ?? null,
    item.attachments ? JSON.stringify(item.attachments) : null,
    item.providerMetadata ? JSON.stringify(item.providerMetadata) : null,
    item.createdAt,
  ];
}
