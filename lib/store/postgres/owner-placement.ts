import type { ClusterNode } from "./cluster-node";
import type { ClusterRecords } from "./cluster-records";
import type { IndexReplica } from "./index-replica";
import { LeaseHeldError } from "./leases";

/** Where a conversation's owner runs (DESIGN §10c). */
export type Placement =
  /** On this node: its lease is held and its records loaded; `taken`: the lease was just taken (recover its open turns). */
  | { kind: "here"; taken: boolean }
  /** On another live node, reached at `url` (null: that node gave no ATRIUM_NODE_URL). */
  | { kind: "elsewhere"; nodeId: string; url: string | null }
  /** No such conversation (never created, or deleted). */
  | { kind: "missing" };

/**
 * Decides, per request, which node's owner a conversation's command goes to: the node holding
 * its lease, or this one, which takes the lease when nobody holds it (a first use, a clean stop's
 * hand-back, or a dead holder's lease run out). Two requests at once share one decision.
 */
export class OwnerPlacement {
  private readonly placing = new Map<string, Promise<Placement>>();

  constructor(
    readonly node: ClusterNode,
    readonly records: ClusterRecords,
    private readonly replica: IndexReplica,
  ) {}

  place(conversationId: string): Promise<Placement> {
    if (this.records.isLoaded(conversationId)) return Promise.resolve({ kind: "here", taken: false });
    let placing = this.placing.get(conversationId);
    if (!placing) {
      placing = this.decide(conversationId).finally(() => this.placing.delete(conversationId));
      this.placing.set(conversationId, placing);
    }
    return placing;
  }

  /** Whether this node holds the conversation's lease and has its records. */
  isHere(conversationId: string): boolean {
    return this.records.isLoaded(conversationId);
  }

  /** The owner is unloaded: the lease is handed back (another node may take it at once). */
  async release(conversationId: string): Promise<void> {
    this.records.forget(conversationId);
    await this.node.keeper.release(conversationId);
  }

  /** The lease was lost (taken over): only the records are dropped; the keeper has let it go already. */
  lost(conversationId: string): void {
    this.records.forget(conversationId);
  }

  private async decide(conversationId: string): Promise<Placement> {
    if (!(await this.records.exists(conversationId))) return { kind: "missing" };
    try {
      const { taken } = await this.records.load(conversationId);
      // The index must have every record before recovery reads the open turns from it.
      if (taken) await this.replica.catchUp(conversationId);
      return { kind: "here", taken };
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      const url = await this.urlOf(error.holder.nodeId);
      return { kind: "elsewhere", nodeId: error.holder.nodeId, url };
    }
  }

  private async urlOf(nodeId: string): Promise<string | null> {
    const rows = await this.node.pool.query<{ url: string | null }>("SELECT url FROM atrium_nodes WHERE id = $1", [nodeId]);
    return rows.rows[0]?.url ?? null;
  }
}
