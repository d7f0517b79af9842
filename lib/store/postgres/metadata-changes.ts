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
    private readonly tell: (change: MetadataChange) => void,
    /** Whether anyone here listens (a sidebar on this node): nothing is read for nobody. */
    private readonly wanted: () => boolean,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Hears the feed's notices until the returned function is called. */
  follow(feed: RecordFeed): () => void {
    return feed.onNotice((notice) => this.heard(notice));
  }

  private heard(notice: RecordNotice): void {
    if (notice.stream !== "metadata") return;
    const { conversationId } = notice;
    const next = (this.reading.get(conversationId) ?? Promise.resolve()).then(() => this.read(notice));
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
    if (rows.length === 0) return;
    const approvals = rows.flatMap(({ type, approval_id: approvalId }) => (isApprovalType(type) && approvalId ? [{ type, approvalId }] : []));
    this.tell({ conversationId, types: rows.map((row) => row.type), approvals });
  }

  private remember(conversationId: string, seq: number): void {
    if (this.cursors.size >= MAX_CURSORS && !this.cursors.has(conversationId)) this.cursors.clear();
    this.cursors.set(conversationId, seq);
  }
}

function isApprovalType(type: string): type is MetadataChange["approvals"][number]["type"] {
  return type === "approval.requested" || type === "approval.decided";
}
