import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { isAuthorized } from "@/lib/auth/session";
import { isAtriumError } from "@/lib/errors";
import type { Conversation, Item, Turn } from "@/lib/events/entities";
import { getAuthContext, getRuntime } from "@/lib/engine/runtime-registry";
import type { Runtime } from "@/lib/engine/runtime";
import { isId } from "@/lib/store/ids";
import type { RestartLink } from "@/lib/store/lineage";
import type { Lineage } from "@/components/chat/lineage";

/** Reads for the workspace pages (React Server Components and server actions), through the one Runtime. */

export const SIDEBAR_LIMIT = 100;

/**
 * server.ts gates every page already; each page, layout and server action checks again where
 * it reads, so a mistake in the gate cannot hand out conversations (DESIGN §10).
 */
export async function assertSignedIn(): Promise<void> {
  const requestHeaders = await headers();
  const allowed = isAuthorized(getAuthContext(), {
    authorization: requestHeaders.get("authorization"),
    cookie: requestHeaders.get("cookie"),
  });
  if (!allowed) redirect("/signin");
}

/** The Runtime, for a request that is signed in; anything else is sent to the sign-in page. */
export async function signedInRuntime(): Promise<Runtime> {
  await assertSignedIn();
  return getRuntime();
}

export async function loadSidebar() {
  const runtime = await signedInRuntime();
  const [{ conversations }, pending] = await Promise.all([
    runtime.listConversations({ archived: "false", offset: 0, limit: SIDEBAR_LIMIT, sort: "updated", direction: "desc" }),
    runtime.listApprovals("pending"),
  ]);
  return { conversations, pendingApprovals: pending.length };
}

export async function findConversation(runtime: Runtime, id: string): Promise<Conversation | null> {
  if (!isId(id)) return null;
  try {
    return await runtime.pages.getConversation(id);
  } catch (error) {
    // Not instanceof: the Runtime's errors come from server.ts's copy of the class, not this bundle's.
    if (isAtriumError(error) && error.code === "not_found") return null;
    throw error;
  }
}

export async function rootItemsAfter(runtime: Runtime, id: string, after: number): Promise<Item[]> {
  const items: Item[] = [];
  let cursor = after;
  for (;;) {
    const page = await runtime.pages.listItems(id, { after: cursor, limit: 500 });
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    cursor = page.nextCursor;
  }
}

/** The latest turns are always sent, whatever items go with them (one that ended while a tab was away). */
const RECENT_TURNS = 50;

/**
 * The turns a view of these items needs: theirs, the open ones, the failed ones (an error shows
 * after a failed turn's last item, in whatever page of history it lands) and the latest few.
 * A 10,000-item conversation has 5,000 turns; sending them all was 1.5 MB of every page.
 */
export function turnsFor(runtime: Runtime, conversation: Conversation, items: Item[]): Promise<Turn[]> {
  const ids = [...new Set(items.flatMap((item) => (item.turnId ? [item.turnId] : [])))];
  return runtime.pages.listTurns(conversation.id, { sessionId: conversation.rootSessionId, ids, recent: RECENT_TURNS });
}

export async function loadConversationLive(runtime: Runtime, conversation: Conversation, afterSeq: number, shown?: Item[]) {
  const items = shown ?? (await rootItemsAfter(runtime, conversation.id, afterSeq));
  const [turns, approvals, questions] = await Promise.all([turnsFor(runtime, conversation, items), runtime.listApprovals("pending"), runtime.listQuestions(conversation.id, "pending")]);
  return { conversation, items, turns, approvals: approvals.filter((approval) => approval.conversationId === conversation.id), questions };
}

/** How many of the latest items a conversation page opens with; older ones are fetched as the reader scrolls up. */
export const FIRST_PAGE = 100;

export async function loadConversationPage(id: string) {
  const runtime = await signedInRuntime();
  // A node of a cluster (DESIGN §10c) takes the conversation's lease if nobody holds it.
  if (isId(id)) await runtime.locate(id);
  const conversation = await findConversation(runtime, id);
  if (!conversation) notFound();
  const latest = await runtime.pages.listItems(conversation.id, { tail: "true", limit: FIRST_PAGE });
  const live = { ...(await loadConversationLive(runtime, conversation, 0, latest.items)), hasOlder: latest.nextCursor !== null };
  let parent: { id: string; title: string } | null | undefined;
  if (conversation.forkedFrom) {
    const found = await findConversation(runtime, conversation.forkedFrom.conversationId);
    parent = found ? { id: found.id, title: found.title } : null;
  }
  return {
    ...live,
    waiting: (await runtime.pages.listWaiting(conversation.id)).filter((entry) => entry.sessionId === conversation.rootSessionId),
    models: runtime.models.list(),
    parent,
    lineage: await loadLineage(runtime, conversation),
  };
}

/**
 * Versions of a restarted message (‹ n/m ›): this conversation's messages that were restarted,
 * each with its restarts; and, for a restart, its place among the versions of the parent's message.
 */
export async function loadLineage(runtime: Runtime, conversation: Conversation): Promise<Lineage> {
  const versionsOf = (from: { id: string; title: string }, messageId: string, restarts: RestartLink[]) => [
    { id: from.id, title: from.title },
    ...restarts.filter((restart) => restart.restartOf === messageId).map((restart) => ({ id: restart.id, title: restart.title })),
  ];
  const own = await runtime.reads.restartsOf(conversation.id);
  const restarted = Object.fromEntries([...new Set(own.map((restart) => restart.restartOf))].map((messageId) => [messageId, versionsOf(conversation, messageId, own)]));
  const parent = conversation.forkedFrom && conversation.restartOf ? await findConversation(runtime, conversation.forkedFrom.conversationId) : null;
  const siblings = parent && conversation.restartOf ? versionsOf(parent, conversation.restartOf, await runtime.reads.restartsOf(parent.id)) : null;
  return { restarted, siblings };
}
