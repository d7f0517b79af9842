import type { ConversationActor } from "./conversation-actor";
import { conversationsWithObjective } from "../store/lookups";
import type { Store } from "../store/store";
import type { GithubEvent } from "./webhook-matching";

export type { GithubEvent } from "./webhook-matching";

/** A verified GitHub webhook: wakes every objective whose listener matches; returns how many. */
export async function deliverGithubEvent(store: Store, actorOf: (conversationId: string) => ConversationActor, event: GithubEvent): Promise<number> {
  let matched = 0;
  for (const conversationId of conversationsWithObjective(store.index, "waiting_event")) {
    if (await actorOf(conversationId).execute({ type: "wake_objective", event })) matched += 1;
  }
  return matched;
}
