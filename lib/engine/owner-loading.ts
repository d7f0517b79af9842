import { AtriumError } from "../errors";
import type { ConversationFold } from "../store/conversation-fold";
import type { Store } from "../store/store";
import type { SessionState, WaitingEntry } from "../ports/owner-port";

/** What a conversation's owner starts from: its records alone, folded (the index is not read). */
export interface OwnerState {
  rootSessionId: string;
  sessions: SessionState[];
  waiting: WaitingEntry[];
  fold: ConversationFold;
}

export function loadOwnerState(store: Store, conversationId: string): OwnerState {
  const fold = store.foldConversation(conversationId);
  if (!fold) throw new AtriumError("not_found", `conversation ${conversationId} was not found`);
  const sessions = [...fold.sessions.values()]
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
    .map(
      (session): SessionState => ({
        id: session.id,
        agent: session.agent,
        model: session.model,
        parentSessionId: session.parentSessionId,
        depth: session.depth,
        createdAt: session.createdAt,
        items: session.items,
        byId: new Map(session.items.map((item) => [item.id, item])),
        runner: null,
        lastReportedInput: null,
        reportedItemCount: 0,
        compaction: session.compaction ? { itemId: session.compaction.itemId, firstKeptItemId: session.compaction.firstKeptItemId } : null,
        reasoningContextApplied: null,
        calibration: session.calibration,
      }),
    );
  const waiting = [...fold.waiting.values()].sort((a, b) => a.position - b.position).map((entry) => ({ ...entry }));
  return { rootSessionId: fold.rootSessionId, sessions, waiting, fold };
}
