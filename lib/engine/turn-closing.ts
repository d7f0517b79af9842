import type { EngineOwner } from "./engine-owner";
import { deliverReport } from "./subagent-sessions";
import { isStorageError } from "../errors";
import type { TurnError } from "../store/records";
import { afterRootTurn } from "./objectives";
import type { InterruptReason, TurnHandle } from "../ports/owner-port";
import { cloneTurn } from "../ports/session-state";
import { recordTurnEnd } from "./turn-records";

type TurnStatus = "completed" | "failed" | "interrupted";

/**
 * The owner's command that closes a turn whose loop is over: closes what is left open, records
 * the end, starts what waits. Runs in the owner's queue. If the disk refuses a record, the turn
 * stays open (interruptible, deletable) and the end is retried by a timer that enqueues
 * `finishTurn` again until a write succeeds; it then ends `failed` with the storage code, so
 * `turn.ended` is never lost silently.
 */
export async function closeTurn(
  owner: EngineOwner,
  runner: TurnHandle,
  status: TurnStatus,
  error: TurnError | null,
  reason: InterruptReason | null,
): Promise<void> {
  if (owner.deleted || runner.settledAlready) {
    runner.session.runner = runner.session.runner === runner ? null : runner.session.runner;
    runner.settle();
    return;
  }
  const failure = runner.storageFailure;
  try {
    await endTurn(owner, runner, failure ? "failed" : status, failure ?? error, reason);
  } catch (caught) {
    if (!isStorageError(caught) || owner.stopped) {
      owner.context.log(`turn ${runner.turn.id} could not be closed: ${caught instanceof Error ? caught.message : String(caught)}`);
      if (runner.session.runner === runner) runner.session.runner = null;
      runner.settle();
      return;
    }
    runner.storageFailure ??= { code: caught.code, message: caught.message };
    const delay = Math.min(100 * 2 ** runner.closeAttempts, 2000);
    runner.closeAttempts += 1;
    owner.context.log(`turn ${runner.turn.id}: ${caught.message}; retrying its end in ${delay} ms`);
    setTimeout(() => void owner.finishTurn(runner, status, error, reason), delay).unref();
    return;
  }
  await afterTurn(owner, runner, reason).catch((caught: unknown) =>
    owner.context.log(`after turn ${runner.turn.id}: ${caught instanceof Error ? caught.message : String(caught)}`),
  );
}

async function endTurn(
  owner: EngineOwner,
  runner: TurnHandle,
  status: TurnStatus,
  error: TurnError | null,
  reason: InterruptReason | null,
): Promise<void> {
  const { session, turn } = runner;
  const endedAt = await recordTurnEnd(owner, runner, status, error, reason);
  turn.status = status;
  turn.endedAt = endedAt;
  turn.error = error;
  session.runner = null;
  owner.publishConversation();
  owner.publish({ type: "turn.ended", sessionId: session.id, turnId: turn.id, turn: cloneTurn(turn) });
  runner.settle();
}

async function afterTurn(owner: EngineOwner, runner: TurnHandle, reason: InterruptReason | null): Promise<void> {
  const { session, turn } = runner;
  if (reason?.code === "server_stopped") return;
  if (session.parentSessionId) await deliverReport(owner, session, turn);
  if (session.id === owner.rootSessionId) await afterRootTurn(owner, turn.status as TurnStatus, turn.error?.message ?? null);
  await owner.pump(session);
  // A subagent's place is free: a subagent whose message waited for one starts now.
  if (session.parentSessionId) for (const other of owner.sessions.values()) if (other.parentSessionId && other !== session) await owner.pump(other);
}
