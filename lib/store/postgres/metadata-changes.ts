import type { Pool } from "pg";
import type { RecordFeed, RecordNotice } from "./record-feed";

/** What one of another node's transactions wrote to a conversation's metadata, as a sidebar needs it. */
export interface MetadataChange {
  conversationId: string;
  /** The types of its metadata records, in seq order. */
  types: string[];
  /** The approvals it requested or decided, in seq order. */
  approvals: Array<{ type: "approval.requested" | "approval.decided"; approvalId: string }>;
}

/**
 * The metadata records after a cursor, up to the notice's seq. A conversation this node has no
 * cursor for ($2 < 0) is read from the transaction that wrote the notice's record (the same
 * xmin): a batch announces only its last seq per stream, and a creation's batch begins with
 * conversation.created.
 */
const CHANGES = `SELECT record->>'type' AS type, record->>'approvalId' AS approval_id FROM atrium_records
  WHERE conversation_id = $1 AND stream = 'metadata' AND seq <= $3
    AND (seq > $2 OR ($2 < 0 AND xmin = (SELECT xmin FROM atrium_records WHERE conversation_id = $1 AND stream = 'metadata' AND seq = $3)))
  ORDER BY seq`;

/**
 * Every conversation's metadata records written at or after a time (the `at` each record holds,
 * the writing node's clock), for the changes a lost listening connection missed. A scan of the
 * records, run only when the feed's connection came back (rare), never per notice.
 */
const WRITTEN_SINCE = `SELECT conversation_id, seq, record->>'type' AS type, record->>'approvalId' AS approval_id FROM atrium_records
  WHERE stream = 'metadata' AND record->>'at' >= $1
  ORDER BY conversation_id, seq`;

/** How far before the connection's loss the missed changes are looked for: notices in flight, and the nodes' clocks apart. */
const MISSED_MARGIN_MS = 30_000;

/** Cursors kept before they are forgotten (a forgotten one is read again from its notice's transaction). */
const MAX_CURSORS = 50_000;

/**
 * DESIGN §10c, "sidebars on every node see list changes": other nodes' changes to conversations'
 * metadata, from the feed's notices and a read of the records they announce (their types only),
 * never from this node's index, and only while a sidebar here listens (list events are not kept
 * for a later subscriber). A conversation whose lease this node holds is left out: its owner here
 * publishes its own list events. Reads of one conversation run one after another, so its
 * changes are told in order, each once.
 */
export class MetadataChanges {
  /** The last metadata seq told per conversation. */
  private readonly cursors = new Map<string, number>();
  private readonly reading = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly heldHere: (conversationId: string) => boolean,
    /** Publishes the change; the next change of the conversation waits for it, so they are told in order. */
    private readonly tell: (change: MetadataChange) => Promise<void> | void,
    /** Whether anyone here listens (a sidebar on this node): nothing is read for nobody. */
    private readonly wanted: () => boolean,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Hears the feed's notices, and reads what it missed after a lost connection, until the returned function is called. */
  follow(feed: RecordFeed): () => void {
    const stopNotices = feed.onNotice((notice) => this.heard(notice));
    const stopResyncs = feed.onResync((lostAt) => this.missed(lostAt));
    return () => {
      stopNotices();
      stopResyncs();
    };
  }

  /**
   * The listening connection came back: notices of changes committed while it was down never
   * came. Every conversation's metadata records since shortly before the loss are read, and what
   * is after each conversation's cursor is told (in order with the notices heard since, each once).
   */
  private missed(lostAt: Date): void {
    if (!this.wanted()) return;
    const since = new Date(lostAt.getTime() - MISSED_MARGIN_MS).toISOString();
    this.pool.query<{ conversation_id: string; seq: string; type: string; approval_id: string | null }>(WRITTEN_SINCE, [since]).then(
      ({ rows }) => {
        const byConversation = new Map<string, Array<{ seq: number; type: string; approval_id: string | null }>>();
        for (const row of rows) {
          const list = byConversation.get(row.conversation_id) ?? [];
          list.push({ seq: Number(row.seq), type: row.type, approval_id: row.approval_id });
          byConversation.set(row.conversation_id, list);
        }
        for (const [conversationId, records] of byConversation) this.queue(conversationId, () => this.tellAfterCursor(conversationId, records));
      },
      (error: unknown) => this.log(`the list events missed while the record feed was down could not be read: ${String(error)}`),
    );
  }

  /** Records of one conversation read at a resync: those after its cursor are told. */
  private tellAfterCursor(conversationId: string, records: Array<{ seq: number; type: string; approval_id: string | null }>): Promise<void> | void {
    if (this.heldHere(conversationId)) return;
    const cursor = this.cursors.get(conversationId) ?? 0;
    const fresh = records.filter((record) => record.seq > cursor);
    if (fresh.length === 0) return;
    this.remember(conversationId, fresh[fresh.length - 1]!.seq);
    return this.announce(conversationId, fresh);
  }

  private heard(notice: RecordNotice): void {
    if (notice.stream !== "metadata") return;
    this.queue(notice.conversationId, () => this.read(notice));
  }

  /** Runs `work` after the conversation's reads under way: its changes are told in order. */
  private queue(conversationId: string, work: () => Promise<void> | void): void {
    const next = (this.reading.get(conversationId) ?? Promise.resolve()).then(work);
    this.reading.set(conversationId, next);
    void next.then(() => {
      if (this.reading.get(conversationId) === next) this.reading.delete(conversationId);
    });
  }

  private async read(notice: RecordNotice): Promise<void> {
    const { conversationId, seq } = notice;
    if (!this.wanted()) {
      // Read from its notice's transaction the next time (see CHANGES): nothing older is told.
      this.cursors.delete(conversationId);
      return;
    }
    const cursor = this.cursors.get(conversationId);
    if (cursor !== undefined && cursor >= seq) return;
    if (this.heldHere(conversationId)) return this.remember(conversationId, seq);
    let rows: Array<{ type: string; approval_id: string | null }>;
    try {
      rows = (await this.pool.query<{ type: string; approval_id: string | null }>(CHANGES, [conversationId, cursor ?? -1, seq])).rows;
    } catch (error) {
      this.log(`the list events of conversation ${conversationId} could not be read: ${String(error)}`);
      return;
    }
    this.remember(conversationId, seq);
    await this.announce(conversationId, rows);
  }

  private async announce(conversationId: string, rows: Array<{ type: string; approval_id: string | null }>): Promise<void> {
    if (rows.length === 0) return;
    const approvals = rows.flatMap(({ type, approval_id: approvalId }) => (isApprovalType(type) && approvalId ? [{ type, approvalId }] : []));
    try {
      await this.tell({ conversationId, types: rows.map((row) => row.type), approvals });
    } catch (error) {
      this.log(`the list events of conversation ${conversationId} could not be told: ${String(error)}`);
    }
  }

  private remember(conversationId: string, seq: number): void {
    if (this.cursors.size >= MAX_CURSORS && !this.cursors.has(conversationId)) this.cursors.clear();
    this.cursors.set(conversationId, seq);
  }
}

function isApprovalType(type: string): type is MetadataChange["approvals"][number]["type"] {
  return type === "approval.requested" || type === "approval.decided";
}
