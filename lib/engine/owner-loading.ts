import type { OwnerContext } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Item } from "../events/entities";
import { conversationRow, latestCompaction, listItems, listSessions, listWaiting } from "../store/queries";
import type { SessionState, WaitingEntry } from "../ports/owner-port";

/** What a conversation's owner starts from: read from the index, which the files rebuild. */
export interface OwnerState {
  rootSessionId: string;
  sessions: SessionState[];
  waiting: WaitingEntry[];
}

export function loadOwnerState(context: OwnerContext, conversationId: string): OwnerState {
  const db = context.store.index;
  const row = conversationRow(db, conversationId);
  if (!row) throw new AtriumError("not_found", `conversation ${conversationId} was not found`);
  const sessions = listSessions(db, conversationId).map((session): SessionState => {
    const items: Item[] = [];
    let after = 0;
    for (;;) {
      const page = listItems(db, session.id, after, 500);
      items.push(...page.items);
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    return {
      id: session.id,
      agent: session.agent,
      model: session.model,
      parentSessionId: session.parentSessionId,
      depth: session.depth,
      createdAt: session.createdAt,
      items,
      byId: new Map(items.map((item) => [item.id, item])),
      runner: null,
      lastReportedInput: null,
      reportedItemCount: 0,
      compaction: latestCompaction(db, session.id),
      reasoningContextApplied: null,
    };
  });
  const waiting = listWaiting(db, conversationId).map((entry, position) => ({ ...entry, mode: entry.mode, position }));
  return { rootSessionId: row.rootSessionId, sessions, waiting };
}
