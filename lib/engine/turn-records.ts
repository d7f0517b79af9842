import type { EngineOwner } from "./engine-owner";
import type { Turn } from "../events/entities";
import type { MessageOrigin, MetadataRecord, TurnError } from "../store/records";
import { SERVER_STOPPED_NOTICE } from "./crash-closing";
import type { InterruptReason, ItemFields, SessionState, TurnHandle, TurnInput, WaitingEntry } from "../ports/owner-port";
import { settleParked } from "./parked-decisions";

export const OWNER_INTERRUPT_NOTICE = "The previous turn was interrupted by the owner.";

/** A turn whose inputs are on disk and whose `turn.started` is on its way there. */
export interface TurnStartRecording {
  turn: Turn;
  /** Settles once `turn.started` is flushed (and indexed), or with the storage error that refused it. */
  started: Promise<MetadataRecord>;
}

/**
 * The records that start a turn, written inside the owner's start command; the owner then
 * changes its state. The inputs are flushed before this answers; `turn.started` is only queued
 * (its record comes back in `started`), so the turn's model request need not wait for its flush.
 * `inputsFlushed` is called once, with the turn, as soon as its inputs are on disk and in the
 * session: before the last one is indexed and told, and before `turn.started` is queued. It is
 * not called when an input could not be written.
 */
export async function recordTurnStart(
  owner: EngineOwner,
  session: SessionState,
  inputs: TurnInput[],
  request: { requestKey?: string; requestHash?: string } | undefined,
  existingTurnId: string | undefined,
  inputsFlushed: (turn: Turn) => void = () => undefined,
): Promise<TurnStartRecording> {
  const store = owner.context.store;
  const conversation = owner.conversation();
  const turnId = existingTurnId ?? store.newId();
  const model = session.id === owner.rootSessionId ? conversation.model : session.model;
  const effort = session.id === owner.rootSessionId ? conversation.effort : null;
  const turn: Turn = {
    id: turnId,
    conversationId: owner.id,
    sessionId: session.id,
    status: "running",
    model,
    effort,
    // The record's own time replaces this once it is on disk, before anyone is told of the turn.
    startedAt: store.now().toISOString(),
    endedAt: null,
    error: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    inputMessageIds: inputs.map((input) => input.id),
  };
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    inputsFlushed(turn);
  };
  const unwritten = inputs.filter((input) => !session.byId.has(input.id));
  // The user's items go to disk before the records that take them off the waiting list, so a
  // crash in between leaves the message on disk (recovery drops the now-duplicate waiting entry).
  for (const [index, input] of unwritten.entries()) {
    const fields: ItemFields = {
      id: input.id,
      turnId,
      kind: input.origin === "subagent" ? "subagent_report" : "user_message",
      status: "completed",
      text: input.text,
      origin: input.origin as MessageOrigin,
      fromSessionId: input.fromSessionId,
      attachments: input.attachments?.length ? input.attachments : undefined,
    };
    await owner.writeItem(session, fields, index === unwritten.length - 1 ? tell : undefined);
  }
  tell();
  for (const input of inputs.filter((candidate) => candidate.fromWaiting)) {
    await owner.records.append({ type: "queue.removed", messageId: input.id, reason: "started" });
  }
  const started = owner.records.append({
    type: "turn.started",
    turnId,
    sessionId: session.id,
    model,
    effort,
    inputMessageIds: inputs.map((input) => input.id),
    proof: store.proofs.turnStarted(owner.id, turnId, session.id),
    requestKey: request?.requestKey,
    requestHash: request?.requestHash,
  });
  return { turn, started };
}

/**
 * The records that end a turn: what is left open is closed, parked questions settled, the
 * notice of an interrupt and `turn.ended`. Each step skips what an earlier, failed attempt
 * already wrote, so the owner can retry it. Returns the end time as recorded.
 */
export async function recordTurnEnd(
  owner: EngineOwner,
  runner: TurnHandle,
  status: "completed" | "failed" | "interrupted",
  error: TurnError | null,
  reason: InterruptReason | null,
): Promise<string> {
  const { session, turn } = runner;
  for (const item of session.items) {
    if (item.turnId !== turn.id) continue;
    if (item.status === "streaming" || item.status === "waiting") {
      await owner.finishItem(session, item, {
        status: status === "failed" && item.kind !== "tool_call" ? "failed" : "interrupted",
        text: item.text,
        output: item.output,
      });
    }
  }
  await settleParked(owner, turn);
  if (status === "interrupted" && !runner.noticeWritten) {
    await owner.writeItem(session, {
      turnId: turn.id,
      kind: "notice",
      status: "completed",
      text: reason?.code === "server_stopped" ? SERVER_STOPPED_NOTICE : OWNER_INTERRUPT_NOTICE,
    });
    runner.noticeWritten = true;
  }
  const calibration = session.calibration === null ? {} : { contextCalibration: session.calibration };
  const record = await owner.records.append({ type: "turn.ended", turnId: turn.id, status, error, usage: turn.usage, ...calibration });
  return record.at;
}

/** A steered message joining the running turn: its user_message item, under the message's id. */
export async function recordSteer(owner: EngineOwner, session: SessionState, turn: Turn, entry: WaitingEntry): Promise<void> {
  await owner.writeItem(session, {
    id: entry.id,
    turnId: turn.id,
    kind: "user_message",
    status: "completed",
    text: entry.text,
    origin: entry.origin as MessageOrigin,
    fromSessionId: entry.fromSessionId,
    attachments: entry.attachments?.length ? entry.attachments : undefined,
  });
}
