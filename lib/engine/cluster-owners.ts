import type { OwnerContext } from "./engine-owner";
import { AtriumError, notFound } from "../errors";
import type { MetadataChange } from "../store/postgres/metadata-changes";
import type { OwnerPlacement, Placement } from "../store/postgres/owner-placement";
import type { ConversationActor } from "./conversation-actor";
import type { ReadModel } from "./read-model";
import type { OwnerCache } from "./owner-cache";
import { stopOwner } from "./owner-lifecycle";
import { recoverOpenTurns } from "./recovery";

/**
 * How long a request that finds a conversation's owner just gone from this node (a request under
 * way when the lease went) is told to retry rather than that the conversation does not exist.
 */
const LET_GO_MS = 10_000;

/**
 * The owners of a cluster node (DESIGN §10c). Before a request touches a conversation, `locate`
 * says where its owner runs: here (this node holds the lease; the owner is built from the
 * database's records, and a conversation taken over from a dead node has its open turns closed
 * as crash recovery does), or on the node holding the lease, where the request is forwarded.
 * A lease lost to another node stops this node's owner at once: its writes are refused anyway.
 */
export class ClusterOwners {
  /** When this node let a conversation's owner go (lost, handed over): asked for again within LET_GO_MS, it is node_unavailable, not not_found. */
  private readonly letGo = new Map<string, number>();
  /** Hand-overs under way, per conversation: a request for that conversation waits for its own, never for another's. */
  private readonly handing = new Map<string, Promise<void>>();

  constructor(
    readonly placement: OwnerPlacement,
    private readonly context: OwnerContext,
    private readonly owners: OwnerCache,
    /** What the API reads: a conversation as this node's index has it, decorated as the API shows it. */
    private readonly reads: ReadModel,
  ) {}

  get nodeId(): string {
    return this.placement.node.id;
  }

  /**
   * `follow` (the default): a conversation whose machine is linked to another node goes to that
   * node (DESIGN §10c: a tool call reaches its machine through the node holding the link). One
   * held here moves once it is idle: its lease is handed back and its watchers here follow it;
   * a running turn finishes here first. `fresh`: ask the database, not a moment-old answer
   * (a call that hopped already, or a holder found not listening).
   */
  async locate(conversationId: string, { follow = true, fresh = !follow }: { follow?: boolean; fresh?: boolean } = {}): Promise<Placement> {
    // Placed once its hand-over is done: while the lease is being handed back, the machine's node
    // cannot take it yet, and this node would take it back.
    await this.handing.get(conversationId);
    const stale = this.owners.peek(conversationId);
    // An owner left from a lease this node no longer holds is never used again.
    if (stale && !this.placement.isHere(conversationId)) this.unload(stale);
    const machineNode = follow ? await this.machineNode(conversationId) : null;
    if (machineNode && this.placement.isHere(conversationId)) {
      const owner = this.owners.peek(conversationId);
      if (owner && !owner.idle) return { kind: "here", taken: false };
      await this.handOver(conversationId, machineNode.nodeId);
    }
    const placement = await this.placement.place(conversationId, machineNode ?? undefined, fresh);
    // Found deleted (or never made): a command for it is not_found, however lately this node let it go.
    if (placement.kind === "missing") this.letGo.delete(conversationId);
    if (placement.kind !== "here") return placement;
    if (placement.taken) {
      this.context.log(`conversation ${conversationId}: lease taken by node ${this.nodeId}`);
      await recoverOpenTurns(this.context, (id) => this.actor(id), conversationId);
    }
    return placement;
  }

  /** The owner of a conversation located here (its records are loaded). */
  actor(conversationId: string): ConversationActor {
    if (!this.placement.isHere(conversationId)) {
      // One no node has (locate said missing) is not found, as on a single node; one another node
      // holds, or this node held a moment ago, is to be asked again.
      if (this.placement.knownHolder(conversationId) === undefined && !this.letGoLately(conversationId)) throw notFound("conversation", conversationId);
      throw new AtriumError("node_unavailable", `conversation ${conversationId} is not held by this node; retry the request`);
    }
    return this.owners.get(conversationId);
  }

  /** LeaseKeeper's onLost: another node took the conversation; this node's owner stops and is forgotten. */
  lost(conversationId: string): void {
    this.context.log(`conversation ${conversationId}: this node lost its lease; its owner here stops`);
    this.placement.lost(conversationId);
    const owner = this.owners.peek(conversationId);
    if (owner) this.unload(owner);
  }

  /**
   * Another node changed a conversation's metadata (DESIGN §10c: list events reach every node):
   * the sidebars of this node hear of the conversation made, changed or deleted, and of the
   * approvals it asked or settled, as the cluster's index tables have them now.
   */
  async changed(change: MetadataChange): Promise<void> {
    const { conversationId, types } = change;
    const bus = this.context.bus;
    if (types.includes("conversation.deleted")) {
      bus.publishList({ type: "conversation.deleted", conversationId });
      return;
    }
    try {
      const indexed = await this.placement.reads.conversation(conversationId);
      if (!indexed) return;
      const type = types.includes("conversation.created") ? "conversation.created" : "conversation.updated";
      bus.publishList({ type, conversationId, conversation: this.reads.decorate(indexed) });
      for (const { type: approvalType, approvalId } of change.approvals) {
        const approval = await this.placement.reads.getApproval(approvalId);
        if (approval) bus.publishList({ type: approvalType, conversationId, approval });
      }
    } catch (error) {
      this.context.log(`the list events of conversation ${conversationId} could not be read: ${String(error)}`);
    }
  }

  /**
   * An idle owner dropped from memory hands its lease back, so any node may take it at once. A
   * request that found it here a moment before is told to retry (node_unavailable), not that the
   * conversation does not exist.
   */
  evicted(conversationId: string): void {
    this.forgotten(conversationId);
    this.handBack(conversationId);
  }

  /** A conversation deleted here hands its lease back (a command for it then answers not_found, on every node). */
  deleted(conversationId: string): void {
    this.handBack(conversationId);
  }

  private handBack(conversationId: string): void {
    this.placement.release(conversationId).catch((error: unknown) => this.context.log(`handing back conversation ${conversationId} failed: ${String(error)}`));
  }

  /** Unloads the idle owner and hands its lease back; requests for the conversation meanwhile wait for it (a failed hand-back too). */
  private handOver(conversationId: string, nodeId: string): Promise<void> {
    let handing = this.handing.get(conversationId);
    if (!handing) {
      const owner = this.owners.peek(conversationId);
      if (owner) this.unload(owner);
      handing = this.placement
        .release(conversationId)
        .then(() => this.context.log(`conversation ${conversationId}: handed to node ${nodeId}, which holds its machine's link`))
        .finally(() => this.handing.delete(conversationId));
      this.handing.set(conversationId, handing.catch(() => undefined));
    }
    return handing;
  }

  /**
   * The other live node holding the link of the conversation's machine (null: local, linked here,
   * or offline). Its machine: from this node's index when held here, else from the cluster's.
   */
  private async machineNode(conversationId: string): Promise<{ nodeId: string; url: string | null } | null> {
    const machine = this.placement.isHere(conversationId)
      ? this.reads.indexedConversation(conversationId)?.machine
      : (await this.placement.reads.conversationRow(conversationId))?.executor;
    if (!machine || !this.context.machines || this.context.machines.isLocal(machine)) return null;
    const holder = this.context.machines.linkHolder(machine);
    // A node other nodes cannot reach keeps nothing of another's: the conversation stays reachable.
    return holder?.url ? holder : null;
  }

  private unload(owner: ConversationActor): void {
    this.forgotten(owner.id);
    for (const finishing of stopOwner(owner)) finishing.catch(() => undefined);
    this.owners.drop(owner);
    owner.retire();
    // Its watchers here would hear nothing more: their streams end, and they come back to the holder.
    this.context.bus.end(owner.id);
  }

  private forgotten(conversationId: string): void {
    if (this.letGo.size >= 10_000) this.letGo.clear();
    this.letGo.set(conversationId, Date.now() + LET_GO_MS);
  }

  private letGoLately(conversationId: string): boolean {
    const until = this.letGo.get(conversationId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.letGo.delete(conversationId);
    return false;
  }
}
