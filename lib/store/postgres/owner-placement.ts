import type { ClusterNode } from "./cluster-node";
import type { ClusterRecords } from "./cluster-records";
import { findKeyedCreation, type KeyedCreation } from "./creation-keys";
import type { IndexReplica } from "./index-replica";
import { LeaseHeldError } from "./leases";
import { PostgresIndexReads } from "./postgres-index-reads";
import type { IndexReads } from "../index-reads";

/** Where a conversation's owner runs (DESIGN §10c). */
export type Placement =
  /** On this node: its lease is held and its records loaded; `taken`: the lease was just taken (recover its open turns). */
  | { kind: "here"; taken: boolean }
  /** On another live node, reached at `url` (null: that node gave no ATRIUM_NODE_URL). */
  | { kind: "elsewhere"; nodeId: string; url: string | null }
  /** No such conversation (never created, or deleted). */
  | { kind: "missing" };

/**
 * How long "another node holds it" is believed without asking again. A holder that hands the
 * lease back meanwhile is still asked: it takes the conversation again, or answers node_unavailable.
 */
const ELSEWHERE_KEPT_MS = 1_000;

/**
 * Decides, per request, which node's owner a conversation's command goes to: the node holding
 * its lease, or this one, which takes the lease when nobody holds it (a first use, a clean stop's
 * hand-back, or a dead holder's lease run out). Two requests at once share one decision.
 */
export class OwnerPlacement {
  private readonly placing = new Map<string, Promise<Placement>>();
  /** Recent answers "another node holds it", kept briefly so a busy client's commands cost no query each. */
  private readonly elsewhere = new Map<string, { placement: Placement; until: number }>();
  /**
   * Leases being taken here whose conversations are not yet read into this node's index: not held
   * yet (isHere), so nothing reads or runs against a half-read index; a request meanwhile waits.
   */
  private readonly readingIn = new Map<string, Promise<Placement>>();

  /** The API's lists on this node: the cluster's index tables, current as soon as any node's write commits (issue 24). */
  readonly reads: IndexReads;

  constructor(
    readonly node: ClusterNode,
    readonly records: ClusterRecords,
    private readonly replica: IndexReplica,
  ) {
    this.reads = new PostgresIndexReads(node.pool);
  }

  /**
   * `prefer`: the live node holding the link of the conversation's machine (DESIGN §10c). When no
   * node holds the lease, the conversation goes there rather than here, so its tool calls reach
   * the machine.
   */
  place(conversationId: string, prefer?: { nodeId: string; url: string | null }, fresh = false): Promise<Placement> {
    if (this.isHere(conversationId)) return Promise.resolve({ kind: "here", taken: false });
    const reading = this.readingIn.get(conversationId);
    // Its first request's decision: only that one recovers a lease just taken (one that failed is decided again).
    if (reading) {
      return reading.then(
        (placement) => (placement.kind === "here" ? { kind: "here", taken: false } : placement),
        () => this.place(conversationId, prefer, fresh),
      );
    }
    const known = this.elsewhere.get(conversationId);
    if (known && known.until > Date.now() && !fresh) return Promise.resolve(known.placement);
    this.elsewhere.delete(conversationId);
    // Decisions with different inputs are not shared.
    const key = `${conversationId} ${prefer?.nodeId ?? ""} ${fresh}`;
    let placing = this.placing.get(key);
    if (!placing) {
      placing = this.decide(conversationId, prefer).finally(() => this.placing.delete(key));
      this.placing.set(key, placing);
    }
    return placing;
  }

  /** Whether this node holds the conversation's lease and has its records, read into its index. */
  isHere(conversationId: string): boolean {
    return this.records.isLoaded(conversationId) && !this.readingIn.has(conversationId);
  }

  /**
   * The conversation created under `requestKey` on any node (null: none), once whole (its first
   * turn recorded, or deleted; at once if `requestHash` differs), so the requestKey's replay reads
   * it from the cluster's tables (DESIGN §8, §10c). The database's claim of the key decides
   * between creations at the same instant.
   */
  createdWithKey(requestKey: string, requestHash: string): Promise<KeyedCreation | null> {
    return findKeyedCreation(this.node.pool, this.node.feed, requestKey, requestHash);
  }

  /** The node holding the lease as far as this node knows without asking: itself, or one found a moment ago (undefined: not known). */
  knownHolder(conversationId: string): string | undefined {
    if (this.isHere(conversationId)) return this.node.id;
    const known = this.elsewhere.get(conversationId);
    return known && known.until > Date.now() && known.placement.kind === "elsewhere" ? known.placement.nodeId : undefined;
  }

  /** The live lease holders of these conversations, in one query (absent: none holds it). */
  async holders(conversationIds: readonly string[]): Promise<Map<string, string>> {
    if (conversationIds.length === 0) return new Map();
    const rows = await this.node.pool.query<{ conversation_id: string; node_id: string }>(
      "SELECT conversation_id, node_id FROM atrium_leases WHERE conversation_id = ANY($1) AND expires_at > clock_timestamp()",
      [conversationIds],
    );
    return new Map(rows.rows.map((row) => [row.conversation_id, row.node_id]));
  }

  /** The owner is unloaded: its records and index rows leave this node, and the lease is handed back (another node may take it at once). */
  async release(conversationId: string): Promise<void> {
    this.records.forget(conversationId);
    await this.replica.drop(conversationId);
    await this.node.keeper.release(conversationId);
  }

  /** The lease was lost (taken over): the records and index rows are dropped; the keeper has let it go already. */
  lost(conversationId: string): void {
    this.records.forget(conversationId);
    void this.replica.drop(conversationId);
  }

  private async decide(conversationId: string, prefer?: { nodeId: string; url: string | null }): Promise<Placement> {
    const holder = await this.liveHolder(conversationId);
    if (holder) return this.heldElsewhere(conversationId, holder.nodeId, holder.url);
    if (!(await this.records.exists(conversationId))) return { kind: "missing" };
    // That node takes the lease when the request reaches it (not remembered: nobody holds it yet).
    if (prefer) return { kind: "elsewhere", nodeId: prefer.nodeId, url: prefer.url };
    try {
      return await this.takeHere(conversationId);
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      const holder = await this.liveHolder(conversationId);
      return this.heldElsewhere(conversationId, error.holder.nodeId, holder?.url ?? null);
    }
  }

  /**
   * The lease taken and the records loaded; this node's index holds only what it holds, so the
   * conversation is read into it now, before anything here counts it as held (isHere), its owner
   * is built and recovery reads the open turns from it.
   */
  private takeHere(conversationId: string): Promise<Placement> {
    const taking = (async (): Promise<Placement> => {
      const { taken } = await this.records.load(conversationId);
      await this.replica.catchUp(conversationId);
      return { kind: "here", taken };
    })();
    const settled = taking.finally(() => {
      if (this.readingIn.get(conversationId) === settled) this.readingIn.delete(conversationId);
    });
    this.readingIn.set(conversationId, settled);
    return settled;
  }

  private heldElsewhere(conversationId: string, nodeId: string, url: string | null): Placement {
    const placement: Placement = { kind: "elsewhere", nodeId, url };
    this.elsewhere.set(conversationId, { placement, until: Date.now() + ELSEWHERE_KEPT_MS });
    if (this.elsewhere.size > 10_000) this.elsewhere.clear();
    return placement;
  }

  /** Another node's live lease on the conversation, with the address it gave, in one query (null: none). */
  private async liveHolder(conversationId: string): Promise<{ nodeId: string; url: string | null } | null> {
    const rows = await this.node.pool.query<{ node_id: string; url: string | null }>(
      `SELECT l.node_id, n.url FROM atrium_leases l LEFT JOIN atrium_nodes n ON n.id = l.node_id
        WHERE l.conversation_id = $1 AND l.node_id <> $2 AND l.expires_at > clock_timestamp()`,
      [conversationId, this.node.id],
    );
    const row = rows.rows[0];
    return row ? { nodeId: row.node_id, url: row.url } : null;
  }
}
