import type { EngineOwner } from "./engine-owner";
import type { Turn } from "../events/entities";
import { IMPORTED_ERROR, IMPORTED_NOTICE } from "../store/import-closing";
import { listTurns } from "../store/queries";
import { settleParked } from "./parked-decisions";
import type { SessionState } from "../ports/session-state";

export const SERVER_STOPPED_NOTICE = "The previous turn was interrupted because the Atrium server stopped.";

/** `server_stopped`: this server stopped mid-turn. `imported`: the turn was started elsewhere (DESIGN §2). */
export type CrashCause = "server_stopped" | "imported";

const CAUSES = {
  server_stopped: { notice: SERVER_STOPPED_NOTICE, message: "The Atrium server stopped during this turn." },
  imported: { notice: IMPORTED_NOTICE, message: IMPORTED_ERROR.message },
};

/**
 * A turn found open at start with nothing to resume: keep what was written, flag what is unknown.
 * An imported turn also loses its pending approvals and questions: nobody here asked for them.
 */
export async function closeTurnAfterCrash(actor: EngineOwner, session: SessionState, turn: Turn, cause: CrashCause = "server_stopped"): Promise<void> {
  if (cause === "imported") await settleParked(actor, turn, "imported");
  const unknown: string[] = [];
  for (const item of session.items) {
    if (item.turnId !== turn.id || (item.status !== "streaming" && item.status !== "waiting")) continue;
    // A tool call that had started may or may not have had its effect.
    const status = item.kind === "tool_call" && item.status === "streaming" ? "unknown" : "interrupted";
    if (status === "unknown") unknown.push(`${item.toolName ?? "tool"} ${JSON.stringify(item.input ?? {})}`);
    await actor.finishItem(session, item, { status, text: item.text, output: item.output });
  }
  const details = unknown.length
    ? ` These tool calls had started and their outcome is unknown: ${unknown.join("; ")}. Inspect the current state before repeating them.`
    : "";
  await actor.writeItem(session, { turnId: turn.id, kind: "notice", status: "completed", text: `${CAUSES[cause].notice}${details}` });
  const error = { code: cause, message: CAUSES[cause].message };
  const record = await actor.records.append({
    type: "turn.ended",
    turnId: turn.id,
    status: "interrupted",
    error,
    usage: turn.usage,
  });
  actor.publishConversation();
  actor.publish({
    type: "turn.ended",
    sessionId: session.id,
    turnId: turn.id,
    turn: { ...turn, status: "interrupted", endedAt: record.at, error },
  });
}

/**
 * Waiting entries whose item was already written: the server stopped between the item
 * and the records that start its turn. The turn is started now, on the item on disk.
 */
export async function resumeHalfStartedTurns(actor: EngineOwner): Promise<void> {
  const knownTurns = new Set(listTurns(actor.context.store.index, actor.id).map((turn) => turn.id));
  for (const session of actor.sessions.values()) {
    const entries = actor.waiting.filter((entry) => entry.sessionId === session.id && session.byId.has(entry.id));
    if (entries.length === 0) continue;
    const item = session.byId.get(entries[0].id)!;
    if (item.turnId && knownTurns.has(item.turnId)) {
      for (const entry of entries) {
        await actor.records.append({ type: "queue.removed", messageId: entry.id, reason: "started" });
      }
      actor.forgetWaiting(new Set(entries.map((entry) => entry.id)));
    } else if (!session.runner) {
      const sameTurn = entries.filter((entry) => session.byId.get(entry.id)!.turnId === item.turnId);
      await actor.startTurn(
        session,
        sameTurn.map((entry) => ({ id: entry.id, text: entry.text, origin: entry.origin, fromSessionId: entry.fromSessionId, fromWaiting: true })),
        undefined,
        item.turnId ?? undefined,
      );
    }
  }
}
