import type { OwnerContext } from "./engine-owner";
import { conversationsWithObjective, conversationsWithWaiting } from "../store/lookups";
import { openTurns } from "../store/queries";
import type { Turn } from "../events/entities";
import type { Store } from "../store/store";
import type { ConversationActor } from "./conversation-actor";

/**
 * Crash recovery at start (DESIGN §3): a turn left open is closed `interrupted` with
 * `server_stopped`, unless it is parked on an approval or question, which stays parked.
 * A turn this data directory did not start (a copied or imported conversation, DESIGN §2)
 * is trusted with nothing: it is closed `imported` and its approvals and questions dropped.
 * Then waiting messages carry on.
 */
export async function recoverOpenTurns(
  context: OwnerContext,
  actorOf: (conversationId: string) => ConversationActor,
  /** One conversation only (a cluster node taking over a dead node's conversation, DESIGN §10c). */
  only?: string,
): Promise<void> {
  const db = context.store.index;
  const startedHere = turnsStartedHere(context.store);
  const mine = (conversationId: string) => only === undefined || conversationId === only;
  for (const turn of openTurns(db).filter((open) => mine(open.conversationId))) {
    const actor = actorOf(turn.conversationId);
    const session = actor.sessions.get(turn.sessionId);
    if (!session) continue;
    if (!startedHere(turn)) {
      await actor.closeTurnAfterCrash(session, turn, "imported");
      context.log(`turn ${turn.id} of conversation ${turn.conversationId} was not started here (copied or imported); closed as interrupted, nothing run`);
      continue;
    }
    const parked =
      actor.records.approvals("pending").some((approval) => approval.turnId === turn.id) ||
      actor.records.questions("pending").some((question) => question.turnId === turn.id);
    if (parked) {
      await actor.resumeParkedTurn(session, turn);
    } else {
      await actor.closeTurnAfterCrash(session, turn);
      context.log(`turn ${turn.id} of conversation ${turn.conversationId} was left open by a stop; closed as interrupted`);
    }
  }
  // An open objective whose slice was cut short by the stop carries on with its next slice.
  for (const conversationId of conversationsWithObjective(db, "open").filter(mine)) {
    await actorOf(conversationId).execute({ type: "continue_objective" });
  }
  for (const conversationId of conversationsWithWaiting(db).filter(mine)) {
    const actor = actorOf(conversationId);
    await actor.resumeHalfStartedTurns();
    await actor.pumpAll();
  }
}

/** Whether a turn's `turn.started` carries this data directory's proof; read from the files, which the index only mirrors. */
function turnsStartedHere(store: Store): (turn: Turn) => boolean {
  const proofs = new Map<string, Map<string, string | undefined>>();
  return (turn) => {
    let byTurn = proofs.get(turn.conversationId);
    if (!byTurn) {
      byTurn = new Map();
      for (const { record } of store.readMetadata(turn.conversationId).records) {
        if (record.type === "turn.started") byTurn.set(record.turnId, record.proof);
      }
      proofs.set(turn.conversationId, byTurn);
    }
    return store.proofs.verifyTurnStarted(byTurn.get(turn.id), turn.conversationId, turn.id, turn.sessionId);
  };
}
