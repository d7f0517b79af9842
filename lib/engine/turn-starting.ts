import type { EngineOwner } from "./engine-owner";
import type { Turn } from "../events/entities";
import type { SessionState, TurnInput } from "../ports/owner-port";
import { cloneTurn } from "../ports/session-state";
import { recordTurnStart } from "./turn-records";
import type { TurnRunner } from "./turn-runner";
import type { OwnerState } from "./owner-state";
import { runningSubagents } from "./subagent-sessions";

type TurnRunnerClass = typeof TurnRunner;
let turnRunnerClass: TurnRunnerClass | null = null;

/**
 * The turn loop and what only it runs (the model step, tool dispatch, context assembly, the
 * turn-start checkpoint) load at the server's first turn, not at start: a server that only
 * answers the API, or is only started and stopped, never needs them.
 */
async function loadTurnRunner(): Promise<TurnRunnerClass> {
  turnRunnerClass ??= (await import("./turn-runner")).TurnRunner;
  return turnRunnerClass;
}

/**
 * The owner's command that starts a turn: its inputs' records first, then the session takes the
 * runner, then clients are told once `turn.started` is on disk; the turn loop itself runs outside
 * the queue. The loop starts as soon as the inputs are flushed (before they are indexed, and while
 * `turn.started` is written), so the model request waits for neither: everything the turn writes
 * goes through the owner's queue, behind this command, its reports wait for its start (turn-reports),
 * and a start the disk refuses drops the runner and makes the owner refuse every command written
 * for the turn, so nothing of it is written.
 */
export async function startTurn(
  owner: EngineOwner,
  session: SessionState,
  inputs: TurnInput[],
  request?: { requestKey?: string; requestHash?: string },
  existingTurnId?: string,
): Promise<Turn> {
  const TurnRunner = turnRunnerClass ?? (await loadTurnRunner());
  // Set once the inputs are on disk (recordTurnStart calls `run`): from then on the turn's loop runs.
  const started: { runner?: TurnRunner } = {};
  const run = (turn: Turn) => {
    const runner = new TurnRunner(owner, session, turn, false);
    started.runner = runner;
    session.runner = runner;
    runner.start();
  };
  let turn: Turn;
  let record;
  try {
    let recorded;
    ({ turn, started: recorded } = await recordTurnStart(owner, session, inputs, request, existingTurnId, run));
    record = await recorded;
  } catch (error) {
    // Before anything the turn sent the owner is applied: the owner refuses all of it (owner-commands).
    const runner = started.runner;
    if (runner) {
      owner.unrecordedTurns.add(runner.turn.id);
      if (session.runner === runner) session.runner = null;
      runner.discard();
    }
    throw error;
  }
  const runner = started.runner!;
  turn.startedAt = record.at;
  // A half-started turn resumed under its own id (crash-closing) may have been refused before.
  owner.unrecordedTurns.delete(turn.id);
  runner.confirmRecorded();
  owner.forgetWaiting(new Set(inputs.map((input) => input.id)));
  owner.publish({ type: "turn.started", sessionId: session.id, turnId: turn.id, turn: cloneTurn(turn) });
  owner.publishConversation();
  return cloneTurn(turn);
}

/** Starts the session's next turn from the waiting list (jumps, then the owner's messages, then the rest), when one may start. */
export async function startNextTurn(owner: OwnerState, session: SessionState): Promise<void> {
  if (session.runner || owner.deleted || owner.stopped) return;
  if (owner.manualCompaction && session.id === owner.rootSessionId) return;
  // A restore is rewriting the working directory every session shares: turns start after it.
  if (owner.restoring) return;
  // A subagent with messages waits for a free place (subagentConcurrencyLimit), as spawn_agent does.
  if (session.parentSessionId !== null && runningSubagents(owner) >= owner.context.config.subagentConcurrencyLimit) return;
  const inputs = owner.inbox.next(session.id, owner.holdWaiting && session.id === owner.rootSessionId);
  if (inputs.length > 0) await owner.startTurn(session, inputs);
}

/** Resumes a turn that was parked (approval or question) when the server stopped. */
export async function resumeParkedTurn(owner: EngineOwner, session: SessionState, turn: Turn): Promise<void> {
  const TurnRunner = turnRunnerClass ?? (await loadTurnRunner());
  // The index knows the usage turn.started wrote; the park's own record knows the calls before it.
  const usage = usageWhenParked(owner, turn.id);
  if (usage) turn.usage = { ...usage };
  const runner = new TurnRunner(owner, session, turn, true);
  session.runner = runner;
  runner.start();
}

function usageWhenParked(owner: EngineOwner, turnId: string): { inputTokens: number; outputTokens: number } | null {
  let usage: { inputTokens: number; outputTokens: number } | null = null;
  for (const { record } of owner.context.store.readMetadata(owner.id).records) {
    if ((record.type === "approval.requested" || record.type === "question.asked") && record.turnId === turnId && record.usage) usage = record.usage;
  }
  return usage;
}
