import type Database from "better-sqlite3";
import type { MetadataRecord, SessionRecord, StoredItem } from "./records";

const SEARCHABLE_KINDS = new Set(["user_message", "assistant_message"]);

/**
 * Applies JSONL records to the SQLite index. The live server and `atrium reindex`
 * both go through here, which is what makes a rebuilt index identical to a live one.
 * Raw prepared statements rather than drizzle's builder: this is the hot path of reindex.
 */
export class IndexWriter {
  private readonly statements: ReturnType<typeof prepare>;
  /** During a bulk rebuild full-text rows are filled in one pass at the end. */
  private deferSearch = false;

  constructor(private readonly client: Database.Database) {
    this.statements = prepare(client);
  }

  transaction<T>(work: () => T): T {
    return this.client.transaction(work)();
  }

  beginBulk(): void {
    this.deferSearch = true;
  }

  endBulk(): void {
    this.deferSearch = false;
    this.client.exec(`
      DELETE FROM item_fts; DELETE FROM title_fts;
      INSERT INTO item_fts(rowid, text, conversation_id)
        SELECT rowid, text, conversation_id FROM items
        WHERE kind IN ('user_message', 'assistant_message') AND text IS NOT NULL AND text <> '';
      INSERT INTO title_fts(rowid, title) SELECT rowid, title FROM conversations;
    `);
  }

  applyMetadata(conversationId: string, record: MetadataRecord, endOffset: number): void {
    const s = this.statements;
    switch (record.type) {
      case "conversation.created": {
        s.insertConversation.run({
          id: conversationId,
          title: record.title,
          titleSource: record.titleSource,
          agent: record.agent,
          model: record.model,
          effort: record.effort,
          cwd: record.cwd,
          executor: record.executor,
          rootSessionId: record.rootSessionId,
          protected: record.protected ? 1 : 0,
          forkedFromConversationId: record.forkedFrom?.conversationId ?? null,
          forkedFromItemId: record.forkedFrom?.itemId ?? null,
          at: record.at,
        });
        this.indexTitle(conversationId);
        this.rememberKey("", record.requestKey, record.requestHash, record.at, {
          kind: "conversation.created",
          conversationId,
        });
        break;
      }
      case "conversation.updated": {
        const fields: Record<string, unknown> = {};
        if (record.title !== undefined) fields.title = record.title;
        if (record.titleSource !== undefined) fields.title_source = record.titleSource;
        if (record.archived !== undefined) fields.archived = record.archived ? 1 : 0;
        if (record.protected !== undefined) fields.protected = record.protected ? 1 : 0;
        if (record.model !== undefined) fields.model = record.model;
        if (record.effort !== undefined) fields.effort = record.effort;
        if (record.cwd !== undefined) fields.cwd = record.cwd;
        const names = Object.keys(fields);
        if (names.length > 0) {
          const assignments = names.map((name) => `${name} = @${name}`).join(", ");
          this.client
            .prepare(`UPDATE conversations SET ${assignments}, updated_at = max(updated_at, @at) WHERE id = @id`)
            .run({ ...fields, at: record.at, id: conversationId });
        }
        if (record.title !== undefined) this.indexTitle(conversationId);
        break;
      }
      case "conversation.deleted":
        this.removeConversation(conversationId);
        return;
      case "session.created":
        s.insertSession.run({
          id: record.sessionId,
          conversationId,
          parentSessionId: record.parentSessionId ?? null,
          agent: record.agent,
          model: record.model,
          depth: record.depth ?? 0,
          at: record.at,
        });
        break;
      case "turn.started":
        s.insertTurn.run({
          id: record.turnId,
          conversationId,
          sessionId: record.sessionId,
          model: record.model,
          effort: record.effort,
          at: record.at,
          inputMessageIds: JSON.stringify(record.inputMessageIds),
        });
        s.touchConversation.run({ id: conversationId, at: record.at });
        this.refreshStatus(conversationId, record.sessionId);
        this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, {
          kind: "turn.started",
          turnId: record.turnId,
          sessionId: record.sessionId,
          messageId: record.inputMessageIds[0] ?? null,
        });
        break;
      case "turn.ended": {
        s.endTurn.run({
          id: record.turnId,
          status: record.status,
          at: record.at,
          errorCode: record.error?.code ?? null,
          errorMessage: record.error?.message ?? null,
          inputTokens: record.usage.inputTokens,
          outputTokens: record.usage.outputTokens,
        });
        s.touchConversation.run({ id: conversationId, at: record.at });
        const turn = s.turnSession.get(record.turnId) as { session_id: string } | undefined;
        if (turn) this.refreshStatus(conversationId, turn.session_id);
        break;
      }
      case "queue.added":
        s.insertWaiting.run({
          id: record.messageId,
          conversationId,
          sessionId: record.sessionId,
          text: record.text,
          mode: record.mode,
          origin: record.origin,
          fromSessionId: record.fromSessionId ?? null,
          attachments: record.attachments ? JSON.stringify(record.attachments) : null,
          position: record.seq,
          at: record.at,
        });
        this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, {
          kind: "queue.added",
          messageId: record.messageId,
          mode: record.mode,
          sessionId: record.sessionId,
          turnId: record.turnId ?? null,
        });
        break;
      case "queue.updated":
        s.updateWaiting.run({
          id: record.messageId,
          text: record.text ?? null,
          mode: record.mode ?? null,
        });
        break;
      case "queue.removed":
        s.deleteWaiting.run(record.messageId);
        break;
      case "approval.requested":
        s.insertApproval.run({
          id: record.approvalId,
          conversationId,
          sessionId: record.sessionId,
          turnId: record.turnId,
          itemId: record.itemId,
          toolName: record.toolName,
          input: JSON.stringify(record.input ?? null),
          at: record.at,
        });
        s.setTurnStatus.run({ id: record.turnId, status: "waiting_approval" });
        this.refreshStatus(conversationId, record.sessionId);
        break;
      case "approval.decided": {
        s.decideApproval.run({
          id: record.approvalId,
          status: record.decision === "approve" ? "approved" : "denied",
          at: record.at,
        });
        const approval = s.approvalTurn.get(record.approvalId) as
          | { turn_id: string; session_id: string }
          | undefined;
        if (approval) {
          s.resumeTurn.run({ id: approval.turn_id });
          this.refreshStatus(conversationId, approval.session_id);
        }
        break;
      }
      case "question.asked":
        s.insertQuestion.run({
          id: record.questionId,
          conversationId,
          sessionId: record.sessionId,
          turnId: record.turnId,
          itemId: record.itemId,
          question: record.question,
          choices: JSON.stringify(record.choices),
          at: record.at,
        });
        s.setTurnStatus.run({ id: record.turnId, status: "waiting_user" });
        this.refreshStatus(conversationId, record.sessionId);
        break;
      case "question.answered": {
        s.answerQuestion.run({ id: record.questionId, answer: record.cancelled ? null : record.answer, status: record.cancelled ? "cancelled" : "answered" });
        const question = s.questionTurn.get(record.questionId) as
          | { turn_id: string; session_id: string }
          | undefined;
        if (question) {
          s.resumeTurn.run({ id: question.turn_id });
          this.refreshStatus(conversationId, question.session_id);
        }
        break;
      }
      case "objective.opened":
        s.insertObjective.run({
          id: record.objectiveId,
          conversationId,
          text: record.text,
          sliceLimit: record.sliceLimit,
          at: record.at,
        });
        break;
      case "objective.updated":
        s.updateObjective.run({
          id: record.objectiveId,
          status: record.status ?? null,
          slices: record.slices ?? null,
          reasonSet: record.reason !== undefined ? 1 : 0,
          reason: record.reason ?? null,
          listenerSet: record.listener !== undefined ? 1 : 0,
          listener: record.listener !== undefined ? JSON.stringify(record.listener) : null,
          at: record.at,
        });
        break;
      case "compaction":
        s.insertCompaction.run({
          itemId: record.itemId,
          conversationId,
          sessionId: record.sessionId,
          at: record.at,
          tokensBefore: record.tokensBefore,
          tokensAfter: record.tokensAfter,
          firstKeptItemId: record.firstKeptItemId,
        });
        break;
    }
    s.setMetadataProgress.run({ id: conversationId, seq: record.seq, bytes: endOffset });
  }

  applySession(conversationId: string, sessionId: string, record: SessionRecord, endOffset: number): void {
    const s = this.statements;
    switch (record.type) {
      case "item.created":
        this.insertItem(conversationId, record.seq, record.item);
        s.touchConversation.run({ id: conversationId, at: record.at });
        break;
      case "item.progress":
        s.progressItem.run({ id: record.itemId, text: record.text });
        this.indexItemText(record.itemId);
        break;
      case "item.completed":
        s.completeItem.run({
          id: record.itemId,
          status: record.status,
          text: record.text ?? null,
          output: record.output ?? null,
          exitCode: record.exitCode ?? null,
          artifactId: record.artifactId ?? null,
          providerMetadata: record.providerMetadata ? JSON.stringify(record.providerMetadata) : null,
        });
        this.indexItemText(record.itemId);
        break;
    }
    s.setSessionProgress.run({ id: sessionId, seq: record.seq, bytes: endOffset });
  }

  removeConversation(conversationId: string): void {
    const s = this.statements;
    s.deleteItemSearch.run(conversationId);
    s.deleteTitleSearch.run(conversationId);
    for (const table of [
      "items",
      "turns",
      "sessions",
      "waiting",
      "approvals",
      "questions",
      "objectives",
      "compactions",
    ]) {
      this.client.prepare(`DELETE FROM ${table} WHERE conversation_id = ?`).run(conversationId);
    }
    s.deleteKeys.run(conversationId);
    s.deleteConversation.run(conversationId);
  }

  private rememberKey(
    scope: string,
    key: string | undefined,
    hash: string | undefined,
    at: string,
    reference: Record<string, unknown>,
  ): void {
    if (!key || !hash) return;
    // Only a reference to what the key created is kept, so a rebuilt index holds exactly the same row.
    this.statements.insertKeyIfMissing.run({ scope, key, hash, response: JSON.stringify(reference), at });
  }

  private insertItem(conversationId: string, seq: number, item: StoredItem): void {
    const result = this.statements.insertItem.run({
      id: item.id,
      conversationId,
      sessionId: item.sessionId,
      seq,
      turnId: item.turnId,
      kind: item.kind,
      status: item.status,
      text: item.text ?? null,
      toolName: item.toolName ?? null,
      toolCallId: item.toolCallId ?? null,
      input: item.input === undefined ? null : JSON.stringify(item.input),
      output: item.output ?? null,
      exitCode: item.exitCode ?? null,
      artifactId: item.artifactId ?? null,
      origin: item.origin ?? null,
      fromSessionId: item.fromSessionId ?? null,
      attachments: item.attachments ? JSON.stringify(item.attachments) : null,
      providerMetadata: item.providerMetadata ? JSON.stringify(item.providerMetadata) : null,
      createdAt: item.createdAt,
    });
    if (!this.deferSearch && SEARCHABLE_KINDS.has(item.kind) && item.text) {
      this.statements.insertItemSearch.run({
        rowid: result.lastInsertRowid,
        text: item.text,
        conversationId,
      });
    }
  }

  private indexItemText(itemId: string): void {
    if (this.deferSearch) return;
    const row = this.statements.itemForSearch.get(itemId) as
      | { rowid: number; kind: string; text: string | null; conversation_id: string }
      | undefined;
    if (!row || !SEARCHABLE_KINDS.has(row.kind)) return;
    this.statements.deleteOneItemSearch.run(row.rowid);
    // Text that became empty leaves no row, as a rebuild (endBulk) would leave none.
    if (row.text) this.statements.insertItemSearch.run({ rowid: row.rowid, text: row.text, conversationId: row.conversation_id });
  }

  private indexTitle(conversationId: string): void {
    if (this.deferSearch) return;
    const row = this.statements.conversationRow.get(conversationId) as { rowid: number; title: string } | undefined;
    if (!row) return;
    this.statements.deleteOneTitleSearch.run(row.rowid);
    this.statements.insertTitleSearch.run({ rowid: row.rowid, title: row.title });
  }

  /** A session or conversation is running while one of its turns runs, waiting while one is parked. */
  private refreshStatus(conversationId: string, sessionId: string): void {
    this.statements.refreshSessionStatus.run({ id: sessionId });
    this.statements.refreshConversationStatus.run({ id: conversationId });
  }
}

function prepare(client: Database.Database) {
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
        created_at, updated_at, metadata_seq, metadata_bytes)
      VALUES (@id, @title, @titleSource, @agent, @model, @effort, @cwd, @executor, @rootSessionId, 0,
        @protected, 'idle', @forkedFromConversationId, @forkedFromItemId, @at, @at, 0, 0)`),
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
    insertTurn: client.prepare(`
      INSERT OR REPLACE INTO turns (id, conversation_id, session_id, status, model, effort, started_at,
        input_message_ids)
      VALUES (@id, @conversationId, @sessionId, 'running', @model, @effort, @at, @inputMessageIds)`),
    endTurn: client.prepare(`
      UPDATE turns SET status = @status, ended_at = @at, error_code = @errorCode, error_message = @errorMessage,
        input_tokens = @inputTokens, output_tokens = @outputTokens WHERE id = @id`),
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
    approvalTurn: client.prepare(`SELECT turn_id, session_id FROM approvals WHERE id = ?`),
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
    insertItem: client.prepare(`
      INSERT OR REPLACE INTO items (id, conversation_id, session_id, seq, turn_id, kind, status, text, tool_name,
        tool_call_id, input, output, exit_code, artifact_id, origin, from_session_id, attachments, provider_metadata,
        created_at)
      VALUES (@id, @conversationId, @sessionId, @seq, @turnId, @kind, @status, @text, @toolName, @toolCallId,
        @input, @output, @exitCode, @artifactId, @origin, @fromSessionId, @attachments, @providerMetadata, @createdAt)`),
    // A tool call's progress is its output so far, and its first progress marks that it started running.
    progressItem: client.prepare(`
      UPDATE items SET
        text = CASE WHEN kind = 'tool_call' THEN text ELSE @text END,
        output = CASE WHEN kind = 'tool_call' THEN @text ELSE output END,
        status = CASE WHEN kind = 'tool_call' THEN 'streaming' ELSE status END
      WHERE id = @id`),
    completeItem: client.prepare(`
      UPDATE items SET status = @status, text = coalesce(@text, text), output = coalesce(@output, output),
        exit_code = coalesce(@exitCode, exit_code), artifact_id = coalesce(@artifactId, artifact_id),
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
    insertKeyIfMissing: client.prepare(`
      INSERT OR IGNORE INTO request_keys (scope, key, hash, response, created_at)
      VALUES (@scope, @key, @hash, @response, @at)`),
    deleteKeys: client.prepare(`DELETE FROM request_keys WHERE scope = ?`),
  };
}
