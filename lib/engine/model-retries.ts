import type { EngineOwner } from "./engine-owner";
import type { Item, Turn } from "../events/entities";
import type { SessionState } from "../ports/owner-port";
import { isStorageError } from "../errors";
import { TurnFailure } from "../context/turn-failure";
import type { StepResult } from "./model-step";
import { abortableSleep, classifyModelError, retryDelay } from "./retry";

/** What a turn's model calls are retried for: the turn, its session and its owner. */
export interface RetryingTurn {
  readonly actor: EngineOwner;
  readonly session: SessionState;
  readonly turn: Turn;
  readonly signal: AbortSignal;
  /** Whether the turn's `turn.started` reached the disk (settles once it is known). */
  readonly recorded: Promise<boolean>;
}

/**
 * One model call of a turn, retried as config.retry says (DESIGN §3): what a failed attempt
 * streamed stays visible, marked failed, and is not sent again; each wait is on the turn's
 * timeline and told as `turn.retrying`; a failure that is not retryable, or the last one, ends
 * the turn (TurnFailure).
 */
export async function callModelWithRetries(runner: RetryingTurn, call: (attemptItems: Item[]) => Promise<StepResult>): Promise<StepResult> {
  const retry = runner.actor.context.config.retry;
  for (let attempt = 0; ; attempt += 1) {
    const attemptItems: Item[] = [];
    try {
      return await call(attemptItems);
    } catch (caught) {
      if (runner.signal.aborted) throw caught;
      if (caught instanceof TurnFailure || isStorageError(caught)) throw caught;
      const classified = classifyModelError(caught);
      for (const item of attemptItems) {
        if (item.status === "streaming") await runner.actor.completeItem(runner.session, item, { status: "failed", text: item.text });
      }
      if (!classified.retryable || attempt >= retry.maxRetries) {
        throw new TurnFailure({ code: classified.code, message: classified.message });
      }
      // Clients hear of a turn's retries only after its start (a model that fails at once can answer before turn.started is on disk).
      if (!(await runner.recorded)) throw caught;
      const delayMs = retryDelay(attempt + 1, retry, classified.retryAfterMs);
      const now = new Date();
      runner.actor.context.noteTimeline(runner.turn.id, {
        kind: "retry",
        startedAt: now.toISOString(),
        endedAt: new Date(now.getTime() + delayMs).toISOString(),
        status: `attempt ${attempt + 1}: ${classified.message}`,
      });
      runner.actor.publish({
        type: "turn.retrying",
        sessionId: runner.session.id,
        turnId: runner.turn.id,
        attempt: attempt + 1,
        delayMs,
        error: { code: classified.code, message: classified.message },
      });
      await abortableSleep(delayMs, runner.signal);
    }
  }
}
