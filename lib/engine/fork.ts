import { AtriumError } from "../errors";
import type { Item } from "../events/entities";
import type { StoredItem } from "../store/records";
import type { ConversationActor } from "./conversation-actor";
import type { EngineContext } from "./engine-context";

export interface ForkOptions {
  /** Copy up to and including this item. */
  throughItemId?: string;
  /** Copy up to, not including, this item (rewind). */
  beforeItemId?: string;
  keyed: { requestKey?: string; requestHash?: string };
}

/**
 * Copies the root agent's finished history into a new conversation (DESIGN §2): not the
 * subagents, the waiting messages or the archived state. Items get new ids.
 */
export async function forkConversation(context: EngineContext, source: ConversationActor, options: ForkOptions): Promise<string> {
  const store = context.store;
  const conversation = source.conversation();
  const root = source.root;
  const copied = selectItems(root.items, root.runner?.turn.id ?? null, options);
  const conversationId = store.newId();
  const rootSessionId = store.newId();
  await store.appendMetadata(conversationId, {
    type: "conversation.created",
    conversationId,
    title: conversation.title,
    titleSource: conversation.titleSource,
    agent: conversation.agent,
    model: conversation.model,
    effort: conversation.effort,
    cwd: conversation.cwd,
    executor: "local",
    rootSessionId,
    forkedFrom: { conversationId: source.id, itemId: copied.length ? copied[copied.length - 1].id : null },
    ...options.keyed,
  });
  await store.appendMetadata(conversationId, {
    type: "session.created",
    sessionId: rootSessionId,
    agent: root.agent,
    model: root.model,
    parentSessionId: null,
    depth: 0,
  });
  await Promise.all(
    copied.map((item) =>
      store.appendSession(conversationId, rootSessionId, {
        type: "item.created",
        item: copyItem(item, store.newId(), rootSessionId),
      }),
    ),
  );
  return conversationId;
}

function selectItems(items: readonly Item[], runningTurnId: string | null, options: ForkOptions): Item[] {
  const finished = items.filter(
    (item) =>
      item.status !== "streaming" && item.status !== "waiting" && (runningTurnId === null || item.turnId !== runningTurnId),
  );
  if (options.beforeItemId) {
    const index = items.findIndex((item) => item.id === options.beforeItemId);
    if (index === -1) throw new AtriumError("not_found", `item ${options.beforeItemId} was not found in this conversation`);
    return finished.filter((item) => items.indexOf(item) < index);
  }
  if (options.throughItemId) {
    const index = items.findIndex((item) => item.id === options.throughItemId);
    if (index === -1) throw new AtriumError("not_found", `item ${options.throughItemId} was not found in this conversation`);
    return finished.filter((item) => items.indexOf(item) <= index);
  }
  return finished;
}

function copyItem(item: Item, id: string, sessionId: string): StoredItem {
  const { seq: _seq, ...rest } = item;
  return { ...rest, id, sessionId } as StoredItem;
}
