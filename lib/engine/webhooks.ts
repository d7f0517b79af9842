import type { ConversationActor } from "./conversation-actor";
import type { IndexReads } from "../store/index-reads";
import { conversationsWithObjective } from "../store/lookups";
import type { Placement } from "../store/postgres/owner-placement";
import type { Store } from "../store/store";
import type { GithubEvent } from "./webhook-matching";

export type { GithubEvent } from "./webhook-matching";

/**
 * On a node of a cluster (DESIGN §10c): its index holds only the conversations whose leases it
 * holds, so the objectives waiting for an event are found in the cluster's tables, and each is
 * woken where its owner runs: here when this node holds it or takes it (nobody held it).
 */
export interface ClusterWebhookTargets {
  reads: IndexReads;
  locate(conversationId: string): Promise<Placement>;
  log(message: string): void;
}

/** A verified GitHub webhook: wakes every objective whose listener matches; returns how many. */
export async function deliverGithubEvent(
  store: Store,
  actorOf: (conversationId: string) => ConversationActor,
  event: GithubEvent,
  cluster: ClusterWebhookTargets | null = null,
): Promise<number> {
  const waiting = cluster ? await cluster.reads.conversationsWithObjective("waiting_event") : conversationsWithObjective(store.index, "waiting_event");
  let matched = 0;
  for (const conversationId of waiting) {
    const placement = cluster ? await cluster.locate(conversationId) : null;
    if (placement && placement.kind !== "here") {
      if (placement.kind === "elsewhere") cluster!.log(`a GitHub webhook was not offered to conversation ${conversationId}: node ${placement.nodeId} holds it`);
      continue;
    }
    if (await actorOf(conversationId).execute({ type: "wake_objective", event })) matched += 1;
  }
  return matched;
}
