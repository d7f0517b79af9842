import type { EngineOwner } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Objective } from "../events/entities";

export const OBJECTIVE_TEXT_LIMIT = 500;

export type ObjectiveStatus = Objective["status"];

/** The text a slice turn starts from (a user_message with origin "objective"). */
export function sliceText(objective: Objective, event?: string): string {
  const lead = objective.slices === 0 ? `Objective: ${objective.text}` : `Continue the objective: ${objective.text}`;
  return event ? `${lead}\n\n${event}` : lead;
}

export function currentObjective(actor: EngineOwner): Objective | null {
  return actor.records.objective();
}

/** Records a change and tells every client; called inside the conversation's lock. */
export async function setObjective(
  actor: EngineOwner,
  objective: Objective,
  change: { status?: ObjectiveStatus; slices?: number; reason?: string | null; listener?: unknown },
  keyed: Keyed = {},
): Promise<Objective> {
  await actor.records.append({ type: "objective.updated", objectiveId: objective.id, ...change, ...keyed });
  const updated = currentObjective(actor)!;
  if (change.status !== undefined && change.status !== objective.status) {
    // The conversation keeps a row of where the objective went (DESIGN §9): a notice in the root session, in the running turn if any.
    await actor.writeItem(actor.root, { turnId: actor.root.runner?.turn.id ?? null, kind: "notice", status: "completed", origin: "objective", text: objectiveNoticeText(updated) });
  }
  actor.publish({ type: "objective.updated", objective: updated });
  actor.publishConversation();
  return updated;
}

const STATUS_WORDS: Record<Exclude<ObjectiveStatus, "open">, string> = {
  paused: "paused",
  waiting_event: "waiting for an event",
  completed: "completed",
  blocked: "blocked",
  cancelled: "cancelled",
};

/** "Objective paused: the slice limit (20) was reached · 20 slices": what a status change leaves in the timeline. */
export function objectiveNoticeText(objective: Objective): string {
  if (objective.status === "open") return "Objective resumed";
  const slices = `${objective.slices} ${objective.slices === 1 ? "slice" : "slices"}`;
  const reason = objective.reason ? `: ${objective.reason}` : "";
  return `Objective ${STATUS_WORDS[objective.status]}${reason} · ${slices}`;
}

/** "Objective opened: make the tests pass · up to 20 slices": the row an opened objective leaves in the timeline. */
export function objectiveOpenedText(objective: Objective): string {
  return `Objective opened: ${objective.text} · up to ${objective.sliceLimit} ${objective.sliceLimit === 1 ? "slice" : "slices"}`;
}

/**
 * After a root turn ends (DESIGN §6): a completed turn with the objective open and nothing
 * waiting queues the next slice, up to the slice limit; a failed or interrupted one pauses it.
 */
export async function afterRootTurn(actor: EngineOwner, status: "completed" | "failed" | "interrupted", errorMessage: string | null): Promise<void> {
  const objective = currentObjective(actor);
  if (!objective || objective.status !== "open") return;
  if (status === "failed") {
    await setObjective(actor, objective, { status: "paused", reason: `the last turn failed: ${errorMessage ?? "unknown error"}` });
    return;
  }
  if (status === "interrupted") {
    await setObjective(actor, objective, { status: "paused", reason: "the owner interrupted the last turn" });
    return;
  }
  if (actor.waiting.some((entry) => entry.sessionId === actor.rootSessionId)) return;
  await queueSlice(actor, objective);
}

export async function queueSlice(actor: EngineOwner, objective: Objective, event?: string): Promise<void> {
  if (objective.slices >= objective.sliceLimit) {
    await setObjective(actor, objective, { status: "paused", reason: `the slice limit (${objective.sliceLimit}) was reached` });
    return;
  }
  const text = sliceText(objective, event);
  const updated = await setObjective(actor, objective, { slices: objective.slices + 1 });
  await actor.queueEngineMessage(actor.root, text, "objective");
  void updated;
}

export function assertObjectiveText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new AtriumError("bad_request", "text: the objective must not be empty");
  if (trimmed.length > OBJECTIVE_TEXT_LIMIT) {
    throw new AtriumError("bad_request", `text: an objective is a short outcome of at most ${OBJECTIVE_TEXT_LIMIT} characters (got ${trimmed.length})`);
  }
  return trimmed;
}

/** POST …/objective: opens a goal (an open one is cancelled first); idle conversations start the first slice at once. */
/** The requestKey and body hash kept with the record a keyed request wrote (DESIGN §8). */
export type Keyed = { requestKey?: string; requestHash?: string };

export async function openObjective(actor: EngineOwner, text: string, keyed: Keyed = {}): Promise<Objective> {
  const objectiveText = assertObjectiveText(text);
  const store = actor.context.store;
  const previous = currentObjective(actor);
  if (previous && (previous.status === "open" || previous.status === "paused" || previous.status === "waiting_event")) {
    await setObjective(actor, previous, { status: "cancelled", reason: "replaced by a new objective" });
  }
  const objectiveId = store.newId();
  await actor.records.append({
    type: "objective.opened",
    objectiveId,
    text: objectiveText,
    sliceLimit: actor.context.config.objectiveSliceLimit,
    ...keyed,
  });
  let objective = currentObjective(actor)!;
  // Opening is a change of status like the others (DESIGN §9): the conversation keeps a row of it, before its first slice.
  await actor.writeItem(actor.root, { turnId: actor.root.runner?.turn.id ?? null, kind: "notice", status: "completed", origin: "objective", text: objectiveOpenedText(objective) });
  actor.publish({ type: "objective.updated", objective });
  actor.publishConversation();
  if (!actor.root.runner && !actor.waiting.some((entry) => entry.sessionId === actor.rootSessionId)) {
    await queueSlice(actor, objective);
    objective = currentObjective(actor)!;
  }
  return objective;
}

/** PATCH …/objective by the owner (/done, /objective cancel, resume) or objective_update by the agent. */
export async function changeObjective(
  actor: EngineOwner,
  change: { status: "open" | "completed" | "blocked" | "cancelled" | "paused"; note?: string },
  keyed: Keyed = {},
): Promise<Objective> {
  const objective = currentObjective(actor);
  if (!objective) throw new AtriumError("not_found", "this conversation has no objective");
  const finished = ["completed", "blocked", "cancelled"].includes(objective.status);
  if (finished && change.status !== objective.status) {
    throw new AtriumError("not_idle", `the objective is already ${objective.status}; open a new one instead`);
  }
  if (change.status === "open") {
    const reopened = await setObjective(actor, objective, { status: "open", reason: null, listener: null, slices: 0 }, keyed);
    if (!actor.root.runner && !actor.waiting.some((entry) => entry.sessionId === actor.rootSessionId)) {
      await queueSlice(actor, reopened);
    }
    return currentObjective(actor)!;
  }
  return setObjective(actor, objective, { status: change.status, reason: change.note ?? null, listener: null }, keyed);
}

/** At start: an open objective with nothing running or waiting gets its next slice. */
export async function continueObjective(actor: EngineOwner): Promise<void> {
  const objective = currentObjective(actor);
  if (!objective || objective.status !== "open") return;
  if (actor.root.runner || actor.waiting.some((entry) => entry.sessionId === actor.rootSessionId)) return;
  await queueSlice(actor, objective);
}
