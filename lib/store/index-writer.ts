import type Database from "better-sqlite3";
import { DecisionRows } from "./decision-rows";
import { itemRowValues, prepareIndexStatements, type IndexStatements } from "./index-statements";
import type { MetadataRecord, SessionRecord, StoredItem } from "./records";
import type { RecordProofs } from "./record-proofs";
import { ReplayTally } from "./replay-tally";
import { SearchIndex } from "./search-index";
import type { IndexCommitScope } from "./storage-fs";

type MetadataOf<Type extends MetadataRecord["type"]> = Extract<MetadataRecord, { type: Type }>;

/**
 * Applies JSONL records to the SQLite index. The live server and `atrium reindex`
 * both go through here, which is what makes a rebuilt index identical to a live one.
 * Raw prepared statements rather than drizzle's builder: this is the hot path of reindex.
 */
export class IndexWriter {
  private readonly statements: IndexStatements;
  /** conversation.updated statements by the columns they set: at most one per combination. */
  private readonly updateStatements = new Map<string, Database.Statement>();
  /** The full-text rows; during a bulk rebuild they are filled in one pass at the end. */
  private readonly search: SearchIndex;
  private readonly decisions: DecisionRows;
  /** Set while ingest replays one conversation (see `replay`). */
  private tally: ReplayTally | null = null;
  /** Bumped on every write that touches a conversation's rows, so readers can cache them (see `revision`). */
  private readonly revisions = new Map<string, number>();
  /** One transaction wrapper for every call: better-sqlite3 builds four wrapped functions per `transaction()`. */
  private readonly runInTransaction: (work: () => unknown, outermost: boolean) => unknown;

  constructor(
    private readonly client: Database.Database,
    proofs: RecordProofs,
    /**
     * Runs inside every transaction just before it ends: the fault seam (StorageFs.beforeIndexCommit),
     * told whether that end is the real COMMIT or the release of a savepoint in an outer transaction.
     */
    private readonly beforeCommit: (scope: IndexCommitScope) => void = () => undefined,
  ) {
    this.runInTransaction = client.transaction((work: () => unknown, outermost: boolean) => {
      const result = work();
      this.beforeCommit("unit");
      if (outermost) this.beforeCommit("commit");
      return result;
    });
    this.statements = prepareIndexStatements(client);
    this.search = new SearchIndex(client, this.statements);
    this.decisions = new DecisionRows(this.statements, proofs, (conversationId, sessionId, tally) => this.refreshStatus(conversationId, sessionId, tally));
  }

  transaction<T>(work: () => T): T {
    return this.runInTransaction(work, !this.client.inTransaction) as T;
  }

  /**
   * Applies one conversation's whole history: the per-record bookkeeping is tallied and written
   * once at the end (see ReplayTally). Call inside a transaction.
   */
  replay<T>(conversationId: string, work: () => T): T {
    const tally = new ReplayTally(conversationId);
    this.tally = tally;
    try {
      const result = work();
      tally.flush(this.statements);
      return result;
    } finally {
      this.tally = null;
    }
  }

  beginBulk(): void {
    this.search.beginBulk();
  }

  endBulk(): void {
    this.search.endBulk();
  }

  /** Changes whenever this writer applies anything to the conversation: a cache of its rows is current while this is unchanged. */
  revision(conversationId: string): number {
    return this.revisions.get(conversationId) ?? 0;
  }

  applyMetadata(conversationId: string, record: MetadataRecord, endOffset: number): void {
    this.bump(conversationId);
    const tally = this.tally?.conversationId === conversationId ? this.tally : null;
    if (record.type === "conversation.deleted") return this.removeConversation(conversationId);
    this.applyMetadataRows(conversationId, record, tally);
    if (tally) tally.metadataApplied(record.seq, endOffset);
    else this.statements.setMetadataProgress.run({ id: conversationId, seq: record.seq, bytes: endOffset });
  }

  /** The rows one metadata record changes; the file's progress is the caller's. */
  private applyMetadataRows(conversationId: string, record: MetadataRecord, tally: ReplayTally | null): void {
    const s = this.statements;
    switch (record.type) {
      case "conversation.created":
        return this.conversationCreated(conversationId, record, tally);
      case "conversation.updated":
        return this.conversationUpdated(conversationId, record);
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
        tally?.sessionCreated(record.sessionId);
        return;
      case "turn.started":
        return this.turnStarted(conversationId, record, tally);
      case "turn.ended":
        return this.turnEnded(conversationId, record, tally);
      case "queue.added":
        return this.queueAdded(conversationId, record);
      case "queue.updated":
        s.updateWaiting.run({ id: record.messageId, text: record.text ?? null, mode: record.mode ?? null });
        return;
      case "queue.removed":
        s.deleteWaiting.run(record.messageId);
        return;
      case "approval.requested":
      case "question.asked":
        return this.decisions.apply(conversationId, record, tally);
      case "approval.decided":
        this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, { kind: record.type, approvalId: record.approvalId });
        return this.decisions.apply(conversationId, record, tally);
      case "question.answered":
        this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, { kind: record.type, questionId: record.questionId });
        return this.decisions.apply(conversationId, record, tally);
      case "objective.opened":
      case "objective.updated":
        return this.objectiveChanged(conversationId, record);
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
        return;
    }
  }

  private conversationCreated(conversationId: string, record: MetadataOf<"conversation.created">, tally: ReplayTally | null): void {
    this.statements.insertConversation.run({
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
      restartOfItemId: record.forkedFrom?.restartOf ?? null,
      at: record.at,
    });
    tally?.conversationCreated();
    this.search.title(conversationId);
    this.rememberKey("", record.requestKey, record.requestHash, record.at, { kind: "conversation.created", conversationId });
  }

  private conversationUpdated(conversationId: string, record: MetadataOf<"conversation.updated">): void {
    const fields: Record<string, unknown> = {};
    if (record.title !== undefined) fields.title = record.title;
    if (record.titleSource !== undefined) fields.title_source = record.titleSource;
    if (record.archived !== undefined) fields.archived = record.archived ? 1 : 0;
    if (record.protected !== undefined) fields.protected = record.protected ? 1 : 0;
    if (record.model !== undefined) fields.model = record.model;
    if (record.effort !== undefined) fields.effort = record.effort;
    if (record.cwd !== undefined) fields.cwd = record.cwd;
    if (record.executor !== undefined) fields.executor = record.executor;
    const names = Object.keys(fields);
    // Archiving and protecting are not activity: "Updated" (and the sidebar's order) stays put.
    const activity = names.some((name) => name !== "archived" && name !== "protected");
    if (names.length > 0) this.updateStatement(names, activity).run({ ...fields, at: record.at, id: conversationId });
    if (record.title !== undefined) this.search.title(conversationId);
  }

  private turnStarted(conversationId: string, record: MetadataOf<"turn.started">, tally: ReplayTally | null): void {
    this.statements.insertTurn.run(
      record.turnId,
      conversationId,
      record.sessionId,
      record.model,
      record.effort,
      record.at,
      JSON.stringify(record.inputMessageIds),
    );
    tally?.turnSessions.set(record.turnId, record.sessionId);
    this.touch(conversationId, record.at, tally);
    this.refreshStatus(conversationId, record.sessionId, tally);
    this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, {
      kind: "turn.started",
      turnId: record.turnId,
      sessionId: record.sessionId,
      messageId: record.inputMessageIds[0] ?? null,
    });
  }

  private turnEnded(conversationId: string, record: MetadataOf<"turn.ended">, tally: ReplayTally | null): void {
    const s = this.statements;
    s.endTurn.run(
      record.status,
      record.at,
      record.error?.code ?? null,
      record.error?.message ?? null,
      record.usage.inputTokens,
      record.usage.outputTokens,
      record.turnId,
    );
    this.touch(conversationId, record.at, tally);
    const sessionId =
      tally?.turnSessions.get(record.turnId) ??
      (s.turnSession.get(record.turnId) as { session_id: string } | undefined)?.session_id;
    if (sessionId !== undefined) this.refreshStatus(conversationId, sessionId, tally);
  }

  private queueAdded(conversationId: string, record: MetadataOf<"queue.added">): void {
    this.statements.insertWaiting.run({
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
  }

  private objectiveChanged(conversationId: string, record: MetadataOf<"objective.opened" | "objective.updated">): void {
    if (record.type === "objective.opened") {
      this.statements.insertObjective.run({
        id: record.objectiveId,
        conversationId,
        text: record.text,
        sliceLimit: record.sliceLimit,
        at: record.at,
      });
    } else {
      this.statements.updateObjective.run({
        id: record.objectiveId,
        status: record.status ?? null,
        slices: record.slices ?? null,
        reasonSet: record.reason !== undefined ? 1 : 0,
        reason: record.reason ?? null,
        listenerSet: record.listener !== undefined ? 1 : 0,
        listener: record.listener !== undefined ? JSON.stringify(record.listener) : null,
        at: record.at,
      });
    }
    this.rememberKey(conversationId, record.requestKey, record.requestHash, record.at, { kind: record.type, objectiveId: record.objectiveId });
  }

  applySession(conversationId: string, sessionId: string, record: SessionRecord, endOffset: number): void {
    this.bump(conversationId);
    const s = this.statements;
    const tally = this.tally?.conversationId === conversationId ? this.tally : null;
    switch (record.type) {
      case "item.created":
        this.insertItem(conversationId, record.seq, record.item);
        this.touch(conversationId, record.at, tally);
        break;
      case "item.progress":
        s.progressItem.run({ id: record.itemId, text: record.text });
        this.search.itemText(record.itemId);
        break;
      case "item.completed":
        s.completeItem.run({
          id: record.itemId,
          status: record.status,
          text: record.text ?? null,
          output: record.output ?? null,
          exitCode: record.exitCode ?? null,
          sandbox: record.sandbox ?? null,
          allowedBy: record.allowedBy ? JSON.stringify(record.allowedBy) : null,
          artifactId: record.artifactId ?? null,
          providerMetadata: record.providerMetadata ? JSON.stringify(record.providerMetadata) : null,
        });
        this.search.itemText(record.itemId);
        break;
    }
    if (tally) tally.sessionApplied(sessionId, record.seq, endOffset);
    else s.setSessionProgress.run({ id: sessionId, seq: record.seq, bytes: endOffset });
  }

  removeConversation(conversationId: string): void {
    this.bump(conversationId);
    const s = this.statements;
    s.deleteItemSearch.run(conversationId);
    s.deleteTitleSearch.run(conversationId);
    for (const statement of s.deleteConversationRows) statement.run(conversationId);
    s.deleteKeys.run(conversationId);
    s.deleteConversation.run(conversationId);
    if (this.tally?.conversationId === conversationId) this.tally.removed();
  }

  /** The requestKey that created a conversation, for a creation undone (so a retry creates it again). */
  forgetCreation(conversationId: string): void {
    this.statements.deleteCreationKey.run(conversationId);
  }

  private bump(conversationId: string): void {
    this.revisions.set(conversationId, this.revision(conversationId) + 1);
  }

  private updateStatement(columns: string[], activity: boolean): Database.Statement {
    const key = `${columns.join(",")}|${activity}`;
    let statement = this.updateStatements.get(key);
    if (!statement) {
      const assignments = columns.map((name) => `${name} = @${name}`).join(", ");
      const touch = activity ? ", updated_at = max(updated_at, @at)" : "";
      statement = this.client.prepare(`UPDATE conversations SET ${assignments}${touch} WHERE id = @id`);
      this.updateStatements.set(key, statement);
    }
    return statement;
  }

  private touch(conversationId: string, at: string, tally: ReplayTally | null): void {
    if (tally) tally.touch(at);
    else this.statements.touchConversation.run({ id: conversationId, at });
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
    const result = this.statements.insertItem.run(...itemRowValues(conversationId, seq, item));
    this.search.addItem(result.lastInsertRowid, conversationId, item.kind, item.text);
  }

  /** A session or conversation is running while one of its turns runs, waiting while one is parked. */
  private refreshStatus(conversationId: string, sessionId: string, tally: ReplayTally | null): void {
    if (tally) return tally.refreshStatus(sessionId);
    this.statements.refreshSessionStatus.run({ id: sessionId });
    this.statements.refreshConversationStatus.run({ id: conversationId });
  }
}
