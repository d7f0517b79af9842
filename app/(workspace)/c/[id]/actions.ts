"use server";

import { z } from "zod";
import { idSchema } from "@/lib/store/id-schema";
import { getItem, itemConversation } from "@/lib/store/queries";
import { toolSandbox } from "@/lib/sandbox/tool-sandbox";
import { previewFileChange } from "@/lib/tools/file-change-preview";
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
  const conversation = await findConversation(runtime, parsed.data[0]);
  if (!conversation) return null;
  return loadConversationLive(runtime, conversation, parsed.data[1]);
}

const previewArguments = z.tuple([idSchema, idSchema]);

/**
 * Before a write_file or edit_file call is approved, its diff against the file as it is now
 * (real line numbers, context lines), read under the tool's own path rules. Only for a call that
 * is still waiting in this conversation; null when there is nothing to show (or another node
 * of a cluster holds the conversation).
 */
export async function previewToolCall(id: string, itemId: string): Promise<string | null> {
  const runtime = await signedInRuntime();
  const parsed = previewArguments.safeParse([id, itemId]);
  if (!parsed.success) return null;
  // The file is read where the conversation's tools run: on the node holding it (DESIGN §10c). On
  // another node of a cluster the card shows the diff the call's own input makes instead.
  if ((await runtime.locate(parsed.data[0])).kind !== "here") return null;
  const conversation = await findConversation(runtime, parsed.data[0]);
  const item = conversation ? getItem(runtime.store.index, parsed.data[1]) : null;
  if (!conversation || !item || itemConversation(runtime.store.index, item.id) !== conversation.id) return null;
  if (item.kind !== "tool_call" || item.status !== "waiting" || !item.toolName) return null;
  const sandbox = toolSandbox(runtime.config.sandbox, runtime.store.paths.home);
  return previewFileChange({ cwd: conversation.cwd, sandbox }, item.toolName, item.input).catch(() => null);
}
