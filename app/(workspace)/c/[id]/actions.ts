"use server";

import { getRuntime } from "@/lib/engine/runtime-registry";
import { assertSignedIn, findConversation, loadConversationLive } from "../../workspace-data";

/**
 * After each SSE snapshot the view asks for what the snapshot does not carry: items of turns
 * that ended while it was away, the turns' outcomes, and pending approvals and questions
 * (the HTTP API has no list of a conversation's questions yet).
 */
export async function resyncConversation(id: string, afterSeq: number) {
  await assertSignedIn();
  const runtime = getRuntime();
  const conversation = findConversation(runtime, id);
  if (!conversation) return null;
  return loadConversationLive(runtime, conversation, Number.isInteger(afterSeq) && afterSeq > 0 ? afterSeq : 0);
}
