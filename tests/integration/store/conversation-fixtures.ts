import type { Store } from "@/lib/store/store";
import type { StoredItem } from "@/lib/store/records";

export interface BuiltConversation {
  conversationId: string;
  rootSessionId: string;
  /** Ids of the user messages, in order. */
  messageIds: string[];
}

/** A completed user message in the conversation's root session, as a record to append (no turn). */
export function userMessageRecord(store: Store, conversation: BuiltConversation, text: string) {
  return {
    type: "item.created" as const,
    item: {
      id: store.newId(),
      sessionId: conversation.rootSessionId,
      turnId: null,
      kind: "user_message" as const,
      status: "completed" as const,
      text,
      createdAt: store.now().toISOString(),
    },
  };
}

/** A conversation as the engine writes one: conversation.created, the root session, then one exchange per text. */
export async function createConversation(
  store: Store,
  options: { title?: string; texts?: string[]; forkedFrom?: { conversationId: string; itemId: string | null } } = {},
): Promise<BuiltConversation> {
  const conversationId = store.newId();
  const rootSessionId = store.newId();
  await store.appendMetadata(conversationId, {
    type: "conversation.created",
    conversationId,
    title: options.title ?? "A conversation",
    titleSource: "auto",
    agent: "default",
    model: "offline",
    effort: null,
    cwd: "/tmp",
    executor: "local",
    rootSessionId,
    forkedFrom: options.forkedFrom ?? null,
  });
  await store.appendMetadata(conversationId, {
    type: "session.created",
    sessionId: rootSessionId,
    agent: "default",
    model: "offline",
    parentSessionId: null,
    depth: 0,
  });
  const conversation: BuiltConversation = { conversationId, rootSessionId, messageIds: [] };
  for (const text of options.texts ?? ["hello"]) await appendExchange(store, conversation, text);
  return conversation;
}

/** One finished turn: the owner's message and the assistant's streamed answer. */
export async function appendExchange(store: Store, conversation: BuiltConversation, text: string): Promise<void> {
  const { conversationId, rootSessionId: sessionId } = conversation;
  const turnId = store.newId();
  const messageId = store.newId();
  const answerId = store.newId();
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: item(store, { id: messageId, sessionId, turnId, kind: "user_message", status: "completed", text }),
  });
  await store.appendMetadata(conversationId, {
    type: "turn.started",
    turnId,
    sessionId,
    model: "offline",
    effort: null,
    inputMessageIds: [messageId],
  });
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: item(store, { id: answerId, sessionId, turnId, kind: "assistant_message", status: "streaming", text: "" }),
  });
  await store.appendSession(conversationId, sessionId, { type: "item.progress", itemId: answerId, text: "You said:" });
  await store.appendSession(conversationId, sessionId, {
    type: "item.completed",
    itemId: answerId,
    status: "completed",
    text: `You said: ${text}`,
  });
  await store.appendMetadata(conversationId, {
    type: "turn.ended",
    turnId,
    status: "completed",
    error: null,
    usage: { inputTokens: 10, outputTokens: 4 },
  });
  conversation.messageIds.push(messageId);
}

export function item(
  store: Pick<Store, "now">,
  fields: Omit<StoredItem, "createdAt"> & Partial<Pick<StoredItem, "createdAt">>,
): StoredItem {
  return { createdAt: store.now().toISOString(), ...fields };
}

/** The items the index holds for a conversation, without ids: what a reader of the conversation sees. */
export function indexedItems(store: Store, conversationId: string): Array<{ kind: string; status: string; text: string | null }> {
  return store.index.$client
    .prepare(
      `SELECT items.kind, items.status, items.text FROM items JOIN sessions ON sessions.id = items.session_id
       WHERE items.conversation_id = ? ORDER BY sessions.depth, sessions.created_at, items.seq`,
    )
    .all(conversationId) as Array<{ kind: string; status: string; text: string | null }>;
}
