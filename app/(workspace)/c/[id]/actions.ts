"use server";

import { z } from "zod";
import { idSchema } from "@/lib/store/ids";
import { findConversation, loadConversationLive, signedInRuntime } from "../../workspace-data";

const resyncArguments = z.tuple([idSchema, z.unknown().transform((after) => (Number.isSafeInteger(after) && Number(after) > 0 ? Number(after) : 0))]);

/**
 * After each SSE snapshot the view asks for what the snapshot does not carry: items of turns
 * that ended while it was away, the turns' outcomes, and pending approvals and questions
 * (the HTTP API has no list of a conversation's questions yet). Anyone can POST to an
 * action, so it checks the session and its arguments itself.
 */
export async function resyncConversation(id: string, afterSeq: number) {
  const runtime = await signedInRuntime();
  const parsed = resyncArguments.safeParse([id, afterSeq]);
  if (!parsed.success) return null;
  const conversation = findConversation(runtime, parsed.data[0]);
  if (!conversation) return null;
  return loadConversationLive(runtime, conversation, parsed.data[1]);
}
