import type { ConversationActor } from "./conversation-actor";
import type { IndexReads } from "../store/index-reads";
import { conversationsWithObjective } from "../store/lookups";
import type { Placement } from "../store/postgres/owner-placement";
import type { Store } from "../store/store";
import type { GithubEvent } from "./webhook-matching";

export type { GithubEvent } from "./webhook-matching";

/** How a node of a cluster delivers one webhook (DESIGN §10c). */
export interface WebhookDelivery {
  /** Only this conversation: an event another node verified and forwarded here for it; never handed on again. */
  only?: string;
  /** Hands the event to the node holding a conversation; how many objectives it woke there (never throws). */
  elsewhere?(conversationId: string, holder: { nodeId: string; url: string | null }): Promise<number>;
}

/**
 * On a node of a cluster (DESIGN §10c): its index holds only the conversations whose leases it
 * holds, so the objectives waiting for an event are found in the cluster's tables, and each is
 * woken where its owner runs: here when this node holds it or takes it (nobody held it), else
 * on the node holding it, through `elsewhere`.
 */
export interface ClusterWebhookTargets extends WebhookDelivery {
  reads: IndexReads;
  locate(conversationId: string): Promise<Placement>;
  log(message: string): void;
}

/** A verified GitHub webhook: wakes every objective whose listener matches, on any node; returns how many. */
export async function deliverGithubEvent(
  store: Store,
  actorOf: (conversationId: string) => ConversationActor,
  event: GithubEvent,
  cluster: ClusterWebhookTargets | null = null,
): Promise<number> {
  const waiting = cluster?.only ? [cluster.only] : cluster ? await cluster.reads.conversationsWithObjective("waiting_event") : conversationsWithObjective(store.index, "waiting_event");
  let matched = 0;
  // Holders answer at once, each for its own conversations, while this node wakes its own.
  const handedOn: Promise<number>[] = [];
  for (const conversationId of waiting) {
    const placement = cluster ? await cluster.locate(conversationId) : null;
    if (placement && placement.kind !== "here") {
      if (placement.kind !== "elsewhere") continue;
      if (cluster!.elsewhere && !cluster!.only) handedOn.push(cluster!.elsewhere(conversationId, placement));
      else cluster!.log(`a GitHub webhook was not offered to conversation ${conversationId}: node ${placement.nodeId} holds it`);
      continue;
    }
    if (await actorOf(conversationId).execute({ type: "wake_objective", event })) matched += 1;
  }
  for (const count of await Promise.all(handedOn)) matched += count;
  return matched;
}
