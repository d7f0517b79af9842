import type { Item } from "./entities";
import { listApprovals, listItems, listQuestions, openTurns } from "./queries";
import type { Store } from "./store";

export const IMPORTED_NOTICE =
  "The previous turn was interrupted because this conversation was imported: nothing it had asked for was run here.";
export const IMPORTED_ERROR = {
  code: "imported",
  message: "This turn was open when the conversation was imported; it was closed and nothing was run.",
};

/**
 * DESIGN §2: an import trusts nothing to run. Every open turn of the imported conversation is
 * closed as crash recovery closes one (partial text kept, a started tool call `unknown`), with
 * `imported`, and its pending approvals and questions are dropped with that reason.
 * The caller holds runtime.lock, so no owner writes this conversation meanwhile. Returns how many turns it closed.
 */
export async function closeImportedTurns(store: Store, conversationId: string): Promise<number> {
  const db = store.index;
  const turns = openTurns(db).filter((turn) => turn.conversationId === conversationId);
  for (const turn of turns) {
    for (const approval of listApprovals(db, { conversationId, status: "pending" })) {
      if (approval.turnId !== turn.id) continue;
      await store.appendMetadata(conversationId, { type: "approval.decided", approvalId: approval.id, decision: "deny", reason: "imported" });
    }
    for (const question of listQuestions(db, { conversationId, status: "pending" })) {
      if (question.turnId !== turn.id) continue;
      await store.appendMetadata(conversationId, { type: "question.answered", questionId: question.id, answer: "", cancelled: true, reason: "imported" });
    }
    for (const item of sessionItems(store, turn.sessionId)) {
      if (item.turnId !== turn.id || (item.status !== "streaming" && item.status !== "waiting")) continue;
      // A tool call that had started may or may not have had its effect where it ran.
      const status = item.kind === "tool_call" && item.status === "streaming" ? "unknown" : "interrupted";
      await store.appendSession(conversationId, turn.sessionId, { type: "item.completed", itemId: item.id, status, text: item.text, output: item.output });
    }
    const notice = { id: store.newId(), sessionId: turn.sessionId, turnId: turn.id, createdAt: store.now().toISOString() };
    await store.appendSession(conversationId, turn.sessionId, {
      type: "item.created",
      item: { ...notice, kind: "notice", status: "completed", text: IMPORTED_NOTICE },
    });
    await store.appendMetadata(conversationId, { type: "turn.ended", turnId: turn.id, status: "interrupted", error: IMPORTED_ERROR, usage: turn.usage });
  }
  return turns.length;
}

function sessionItems(store: Store, sessionId: string): Item[] {
  const items: Item[] = [];
  for (let after = 0; ; ) {
    const page = listItems(store.index, sessionId, after, 500);
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    after = page.nextCursor;
  }
}
