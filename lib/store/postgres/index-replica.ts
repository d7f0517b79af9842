import type Database from "better-sqlite3";
import type { Pool, PoolClient } from "pg";
import type { IndexWriter } from "../index-writer";
import { metadataRecordSchema, sessionRecordSchema } from "../records";
import { IndexRowCapture, type TableChanges } from "./index-row-capture";
import { deleteConversationRows, writeIndexChanges } from "./index-row-write";
import { PG_INDEX_PREFIX } from "./index-tables";
import { lineOrder, type IndexRowsHook } from "./postgres-record-store";
import type { RecordFeed } from "./record-feed";

const METADATA = "metadata";
/** Deleted conversations remembered (so a late notice reads nothing) before the set starts again. */
const MAX_DELETED_KEPT = 10_000;
/** Thrown to roll back the capture's SQLite transaction (writeOwn). */
const ROLLED_BACK = Symbol("rolled back");

interface RecordRow {
  stream: string;
  seq: string;
  record: Record<string, unknown>;
}

/** A conversation's records after the index's cursors (metadata first: a session's row exists before its items). */
const RECORDS_AFTER = `SELECT stream, seq, record FROM atrium_records
  WHERE conversation_id = $1 AND seq > coalesce(($2::jsonb ->> stream)::bigint, 0)
  ORDER BY stream <> 'metadata', stream, seq`;

/**
 * A node's SQLite index of the conversations whose leases it holds (DESIGN §10c), kept up with
 * atrium_records through the same IndexWriter the files backend uses: a conversation is read in
 * when its lease is taken and dropped when it is let go (other nodes' conversations are read from
 * the cluster's index tables, never from here); the owner's own writes are applied once committed
 * (applyWritten) and their rows written into the cluster's tables in their transaction (ownRows).
 * The index's own progress columns are the cursors (conversations.metadata_seq, sessions.file_seq;
 * the *_bytes columns hold the seq too, there being no file): a conversation is caught up by
 * reading its records after them, metadata first (a session's row exists before its items).
 * A conversation whose metadata holds conversation.deleted is removed and not read again.
 */
export class IndexReplica {
  private readonly reading = new Map<string, Promise<void>>();
  private readonly queued = new Set<string>();
  private readonly deleted = new Set<string>();
  /** Conversations whose rows this node has checked whole in the cluster's tables, or written whole (writeOwn). */
  private readonly whole = new Set<string>();
  private readonly metadataCursor: Database.Statement;
  private readonly sessionCursors: Database.Statement;

  constructor(
    private readonly pool: Pool,
    private readonly client: Database.Database,
    private readonly writer: IndexWriter,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.metadataCursor = client.prepare("SELECT metadata_seq AS seq FROM conversations WHERE id = ?");
    this.sessionCursors = client.prepare("SELECT id, file_seq AS seq FROM sessions WHERE conversation_id = ?");
  }

  /** Every conversation in the database caught up (at a node's start, and after its feed came back). */
  async catchUpAll(): Promise<void> {
    const rows = await this.pool.query<{ conversation_id: string }>(
      `SELECT conversation_id FROM atrium_records WHERE stream = 'metadata' AND seq = 1
        EXCEPT SELECT conversation_id FROM atrium_records WHERE stream = 'metadata' AND record->>'type' = 'conversation.deleted'`,
    );
    for (const conversationId of this.indexedConversations()) {
      if (!rows.rows.some((row) => row.conversation_id === conversationId)) this.remove(conversationId);
    }
    await Promise.all(rows.rows.map((row) => this.catchUp(row.conversation_id)));
  }

  /** One conversation caught up, after any catch-up of it under way (a burst of notices costs one more read). */
  catchUp(conversationId: string): Promise<void> {
    const previous = this.reading.get(conversationId) ?? Promise.resolve();
    if (this.queued.has(conversationId)) return previous;
    this.queued.add(conversationId);
    const next = previous.then(async () => {
      this.queued.delete(conversationId);
      try {
        await this.read(conversationId);
      } catch (error) {
        // The cursors did not move: the next notice or resync reads the same records again.
        this.log(`the index could not catch up conversation ${conversationId}: ${String(error)}`);
      }
    });
    this.reading.set(conversationId, next);
    void next.then(() => {
      if (this.reading.get(conversationId) === next) this.reading.delete(conversationId);
    });
    return next;
  }

  /**
   * A conversation this node no longer holds (its lease handed back or lost): its rows leave this
   * index, after any catch-up or write of it under way; the cluster's tables keep them. Taken
   * again, it is read back whole (catchUp).
   */
  drop(conversationId: string): Promise<void> {
    return this.inTurn(conversationId, () => {
      this.whole.delete(conversationId);
      try {
        this.writer.transaction(() => this.writer.removeConversation(conversationId));
      } catch (error) {
        // Rows left behind are read over when it is taken again (catchUp); nothing reads them meanwhile.
        this.log(`conversation ${conversationId} could not leave this node's index: ${String(error)}`);
      }
    });
  }

  /**
   * Records this node's owner has just written (DESIGN §2's order: durable, then indexed, then
   * published), applied in turn with the catch-ups of the conversation: records the index already
   * has are skipped, and a gap (a catch-up not yet run) is read from the database instead.
   */
  applyWritten(conversationId: string, written: Array<{ stream: string; record: { seq: number; type: string } }>): Promise<void> {
    return this.inTurn(conversationId, () => this.applyOwn(conversationId, written));
  }

  /** A step run after the catch-ups and writes of the conversation under way; forgotten once done (nothing kept per conversation). */
  private inTurn(conversationId: string, step: () => Promise<void> | void): Promise<void> {
    const previous = this.reading.get(conversationId) ?? Promise.resolve();
    const next = previous.then(step);
    const settled = next.catch(() => undefined);
    this.reading.set(conversationId, settled);
    void settled.then(() => {
      if (this.reading.get(conversationId) === settled) this.reading.delete(conversationId);
    });
    return next;
  }

  private async applyOwn(conversationId: string, written: Array<{ stream: string; record: { seq: number; type: string } }>): Promise<void> {
    if (this.deleted.has(conversationId)) return;
    const cursors = this.cursors(conversationId);
    const fresh = written.filter((entry) => entry.record.seq > (cursors[entry.stream] ?? 0));
    const follows = (entry: { stream: string; record: { seq: number } }, index: number) =>
      fresh.slice(0, index).filter((before) => before.stream === entry.stream).length + (cursors[entry.stream] ?? 0) + 1 === entry.record.seq;
    if (fresh.length === 0) return;
    if (fresh.some((entry) => entry.stream === METADATA && entry.record.type === "conversation.deleted")) return this.remove(conversationId);
    if (!fresh.every(follows)) return this.read(conversationId);
    this.apply(conversationId, fresh.map((entry) => ({ stream: entry.stream, seq: String(entry.record.seq), record: entry.record })));
  }

  /** Keeps up with a node's feed: each notice catches its conversation up; a resync catches all up. */
  follow(feed: RecordFeed): () => void {
    const stopNotices = feed.onNotice((notice) => void this.catchUp(notice.conversationId));
    const stopResyncs = feed.onResync(() => void this.catchUpAll());
    return () => {
      stopNotices();
      stopResyncs();
    };
  }

  private async read(conversationId: string): Promise<void> {
    if (this.deleted.has(conversationId)) return;
    const rows = await this.pool.query<RecordRow>(RECORDS_AFTER, [conversationId, JSON.stringify(this.cursors(conversationId))]);
    // Checked again now: the owner's own writes (writeOwn) may have moved the cursors meanwhile.
    const cursors = this.cursors(conversationId);
    const fresh = this.fresh(conversationId, rows.rows, cursors);
    if (fresh === null) {
      void this.catchUp(conversationId);
      return;
    }
    if (fresh.length === 0 || this.deleted.has(conversationId)) return;
    if (!this.begins(cursors, fresh)) {
      this.log(`conversation ${conversationId} does not begin with conversation.created; not indexed`);
      return;
    }
    if (fresh.some((row) => row.stream === METADATA && row.record.type === "conversation.deleted")) {
      this.remove(conversationId);
      return;
    }
    this.apply(conversationId, fresh);
  }

  /**
   * The writing of this node's own index rows into the cluster's atrium_index_* tables (issue 24,
   * DESIGN §10c), for the owner's record store (PostgresRecordStore.writeIndexRows): one
   * derivation, this index's IndexWriter, its changes captured (IndexRowCapture) and written in
   * the transaction that appends their records.
   */
  ownRows(): IndexRowsHook {
    const capture = new IndexRowCapture(this.client);
    return {
      write: (client, conversationId, written) => this.writeOwn(capture, client, conversationId, written),
      undo: (conversationId) => this.undo(conversationId),
    };
  }

  /**
   * Records the owner is appending in `client`'s transaction (numbered there, not yet committed),
   * applied here with the rows they change captured, and those rows written through `client`.
   * Records this index lacks before them (a lease just taken, a notice not yet heard) are read in
   * the transaction and applied (and written) first, so the rows written are the whole
   * conversation's as this index derives it. The apply is rolled back once captured: this index
   * takes the records only once they are committed (applyWritten, DESIGN §2's order), so a
   * transaction that fails leaves nothing here to undo (no creation key of a conversation that
   * never was, no rows a resync could take for a deleted conversation).
   */
  private async writeOwn(capture: IndexRowCapture, client: PoolClient, conversationId: string, written: Array<{ stream: string; record: Record<string, unknown> }>): Promise<void> {
    let rows: RecordRow[] = written.map(({ stream, record }) => ({ stream, seq: String(record.seq), record }));
    const cursors = this.cursors(conversationId);
    if (rows.some((row) => Number(row.seq) <= (cursors[row.stream] ?? 0))) throw new Error(`the index of conversation ${conversationId} is ahead of the database`);
    // Nothing but this transaction writes the conversation's rows now (it holds the lease's row).
    const held = this.whole.has(conversationId) ? null : await heldCursors(client, conversationId);
    if (this.fresh(conversationId, rows) === null) rows = (await client.query<RecordRow>(RECORDS_AFTER, [conversationId, JSON.stringify(this.cursors(conversationId))])).rows;
    // From here on synchronous: read again after the awaits, a catch-up may have applied records meanwhile.
    const now = this.cursors(conversationId);
    const fresh = this.fresh(conversationId, rows, now);
    if (fresh === null || !this.begins(now, fresh)) throw new Error(`the records of conversation ${conversationId} do not follow its index`);
    const deleting = fresh.some((row) => row.stream === METADATA && row.record.type === "conversation.deleted");
    let whole = deleting;
    let changes: TableChanges[] = [];
    try {
      this.writer.transaction(() => {
        changes = capture.capture(() => {
          if (deleting) this.writer.removeConversation(conversationId);
          else this.applyRows(conversationId, fresh);
        });
        if (!deleting && held && !sameCursors(held, this.cursorsBefore(conversationId, written))) {
          whole = true;
          changes = capture.conversationRows(conversationId);
        }
        throw ROLLED_BACK;
      });
    } catch (error) {
      if (error !== ROLLED_BACK) throw error;
    }
    if (whole) await deleteConversationRows(client, conversationId);
    await writeIndexChanges(client, changes);
    this.whole.add(conversationId);
  }

  /**
   * The cursors the database's records had before this batch (this index holds them all now): a
   * stream the batch wrote stands at its first seq less one; a session it created, or the
   * conversation if it created it, is not there yet.
   */
  private cursorsBefore(conversationId: string, written: Array<{ stream: string; record: Record<string, unknown> }>): Record<string, number> {
    const cursors = this.cursors(conversationId);
    for (const { stream, record } of [...written].reverse()) {
      // A session's first record leaves it at 0, as its row stands before any (file_seq 0).
      cursors[stream] = Number(record.seq) - 1;
      if (stream === METADATA && record.type === "session.created") delete cursors[String(record.sessionId)];
    }
    return written.some(({ stream, record }) => stream === METADATA && record.type === "conversation.created") ? {} : cursors;
  }

  /** The owner's transaction failed after writeOwn: nothing of it is here, but whether the cluster's rows are whole is not known. */
  private undo(conversationId: string): void {
    this.whole.delete(conversationId);
  }

  /**
   * The rows the index lacks, checked now (synchronously, so nothing applies in between): those
   * after each stream's cursor; null when they do not follow it (a gap, or the cursors went back).
   */
  private fresh(conversationId: string, rows: RecordRow[], cursors = this.cursors(conversationId)): RecordRow[] | null {
    const next = { ...cursors };
    const fresh = rows.filter((row) => Number(row.seq) > (next[row.stream] ?? 0));
    for (const row of fresh) {
      if (Number(row.seq) !== (next[row.stream] ?? 0) + 1) return null;
      next[row.stream] = Number(row.seq);
    }
    return fresh;
  }

  /** Whether the rows may be applied to what the index holds: a conversation it lacks begins with conversation.created. */
  private begins(cursors: Record<string, number>, fresh: RecordRow[]): boolean {
    if (fresh.length === 0 || cursors[METADATA]) return true;
    const first = fresh[0]!;
    return first.stream === METADATA && first.record.type === "conversation.created";
  }

  private apply(conversationId: string, rows: RecordRow[]): void {
    this.writer.transaction(() => this.applyRows(conversationId, rows));
  }

  private applyRows(conversationId: string, rows: RecordRow[]): void {
    for (const row of rows) {
      const seq = Number(row.seq);
      if (row.stream === METADATA) this.writer.applyMetadata(conversationId, metadataRecordSchema.parse(lineOrder(row.record)), seq);
      else this.writer.applySession(conversationId, row.stream, sessionRecordSchema.parse(lineOrder(row.record)), seq);
    }
  }

  private remove(conversationId: string): void {
    // Bounded: a deleted conversation forgotten here is recognised again from its tombstone if ever read.
    if (this.deleted.size >= MAX_DELETED_KEPT) this.deleted.clear();
    this.deleted.add(conversationId);
    this.writer.transaction(() => this.writer.removeConversation(conversationId));
  }

  /** The last seq of each stream the index holds: metadata, and each session it has a row for. */
  private cursors(conversationId: string): Record<string, number> {
    const conversation = this.metadataCursor.get(conversationId) as { seq: number } | undefined;
    if (!conversation) return {};
    const sessions = this.sessionCursors.all(conversationId) as Array<{ id: string; seq: number }>;
    return { [METADATA]: conversation.seq, ...Object.fromEntries(sessions.map((session) => [session.id, session.seq])) };
  }

  private indexedConversations(): string[] {
    return (this.client.prepare("SELECT id FROM conversations").all() as Array<{ id: string }>).map((row) => row.id);
  }
}

/**
 * The cursors the cluster's tables hold for a conversation (its metadata_seq, each session's
 * file_seq). An owner's first write of a conversation compares them with its own index's before
 * the batch, and writes the whole conversation's rows when they differ: older nodes wrote it
 * before index rows were written (an upgraded cluster), or a writer's rows are missing.
 */
async function heldCursors(client: PoolClient, conversationId: string): Promise<Record<string, number>> {
  const held = await client.query<{ stream: string; seq: string }>(
    `SELECT 'metadata' AS stream, metadata_seq AS seq FROM ${PG_INDEX_PREFIX}conversations WHERE id = $1
      UNION ALL SELECT id, file_seq FROM ${PG_INDEX_PREFIX}sessions WHERE conversation_id = $1`,
    [conversationId],
  );
  return Object.fromEntries(held.rows.map((row) => [row.stream, Number(row.seq)]));
}

function sameCursors(a: Record<string, number>, b: Record<string, number>): boolean {
  const entries = Object.entries(a);
  return entries.length === Object.keys(b).length && entries.every(([stream, seq]) => b[stream] === seq);
}
