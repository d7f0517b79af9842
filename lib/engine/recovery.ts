import { conversationsWithObjective, conversationsWithWaiting } from "../store/lookups";
import { listApprovals, listQuestions, openTurns } from "../store/queries";
import type { ConversationActor } from "./conversation-actor";
import type { EngineContext } from "./engine-context";
import { continueObjective } from "./objectives";

/**
 * Crash recovery at start (DESIGN §3): a turn left open is closed `interrupted` with
 * `server_stopped`, unless it is parked on an approval or question, which stays parked.
 * Then waiting messages carry on.
 */
export async function recoverOpenTurns(
  context: EngineContext,
  actorOf: (conversationId: string) => ConversationActor,
): Promise<void> {
  const db = context.store.index;
  for (const turn of openTurns(db)) {
    const actor = actorOf(turn.conversationId);
    const session = actor.sessions.get(turn.sessionId);
    if (!session) continue;
    const parked =
      listApprovals(db, { conversationId: turn.conversationId, status: "pending" }).some((approval) => approval.turnId === turn.id) ||
      listQuestions(db, { conversationId: turn.conversationId, status: "pending" }).some((question) => question.turnId === turn.id);
    if (parked) {
      actor.resumeParkedTurn(session, turn);
    } else {
      await actor.closeTurnAfterCrash(session, turn);
      context.log(`turn ${turn.id} of conversation ${turn.conversationId} was left open by a stop; closed as interrupted`);
    }
  }
  // An open objective whose slice was cut short by the stop carries on with its next slice.
  for (const conversationId of conversationsWithObjective(db, "open")) {
    await continueObjective(actorOf(conversationId));
  }
  for (const conversationId of conversationsWithWaiting(db)) {
    const actor = actorOf(conversationId);
    await actor.resumeHalfStartedTurns();
    await actor.pumpAll();
  }
}
