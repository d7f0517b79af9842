import { AtriumError } from "../errors";
import type { Approval, Item, Objective, Question, Turn, Waiting } from "../events/entities";
import type { CompactionResult, InterruptReason, ItemCompletion, ItemFields, MessageInput, MessageOutcome, SpawnOptions, TurnHandle } from "../ports/owner-port";
import type { SessionState, WaitingEntry } from "../ports/session-state";
import { cloneTurn } from "../ports/session-state";
import type { CheckpointFields } from "../checkpoints/checkpoints";
import { recordCompaction } from "./compaction-records";
import type { OwnerState } from "./owner-state";
import { currentObjective, setObjective } from "./objectives";
import { answerQuestion, askQuestion, decideApproval, requestApproval } from "./parked-decisions";
import { runningSubagents, spawnSession, takeReports } from "./subagent-sessions";
import { OWNER_INTERRUPT_NOTICE, recordSteer } from "./turn-records";
import { closeTurnAfterCrash, resumeHalfStartedTurns, type CrashCause } from "./crash-closing";
import { changeObjective, continueObjective, openObjective, type Keyed } from "./objectives";
import { wakeObjective, type GithubEvent } from "./webhook-matching";
import { conversationChanges, type ConversationPatch } from "./conversation-patch";
import { deleteConversation, markDeleted } from "./owner-lifecycle";
import { closeTurn } from "./turn-closing";
import type { TurnError } from "../store/records";
import { UnrecordedTurnError } from "./unrecorded-turn";

/**
 * The closed set of commands that change a conversation (DESIGN §3): each is applied by its
 * owner alone, one at a time, in `applyCommand`. Long work — the model stream, tools,
 * compaction's model call, titles, subagent turns — runs outside and reports back through one
 * of these. The table in the issue 22 note says who sends each and what it writes.
 */
/** The commands of the conversation's messages and turns. */
type ConversationCommand =
  | { type: "create_item"; sessionId: string; fields: ItemFields }
  | { type: "complete_item"; sessionId: string; item: Item; fields: ItemCompletion }
  | { type: "send_message"; input: MessageInput }
  | { type: "enqueue_message"; sessionId: string; input: MessageInput }
  | { type: "update_waiting"; messageId: string; patch: { text?: string; mode?: "steer" | "queue" | "jump" } }
  | { type: "withdraw_waiting"; messageId: string }
  | { type: "take_steers"; sessionId: string; turn: Turn }
  | { type: "finish_turn"; runner: TurnHandle; status: "completed" | "failed" | "interrupted"; error: TurnError | null; reason: InterruptReason | null }
  | { type: "interrupt"; sessionId: string; byOwner: boolean }
  | { type: "request_approval"; runner: TurnHandle; item: Item }
  | { type: "decide_approval"; approvalId: string; decision: "approve" | "deny"; keyed: Keyed }
  | { type: "ask_question"; runner: TurnHandle; item: Item; question: string; choices: string[] }
  | { type: "answer_question"; questionId: string; answer: string; keyed: Keyed }
  | { type: "spawn_session"; parentSessionId: string; options: SpawnOptions }
  | { type: "take_reports"; parentSessionId: string; childIds: ReadonlySet<string>; turnId: string }
  | { type: "begin_compaction" }
  | { type: "end_compaction"; controller: AbortController }
  | { type: "record_compaction"; sessionId: string; result: CompactionResult }
  | { type: "wait_for_event"; listener: { source: "github"; match: Record<string, unknown> } }
  | { type: "record_checkpoint"; fields: CheckpointFields }
  | { type: "begin_restore" }
  | { type: "end_restore" }
  | { type: "checkpoint_now" }
  | { type: "pump_all" };

/** The commands of the conversation's life outside one turn: recovery, objectives, title, rename, delete. */
type LifecycleCommand =
  | { type: "write_turn_checkpoint"; sessionId: string; turnId: string }
  | { type: "close_after_crash"; sessionId: string; turn: Turn; cause: CrashCause }
  | { type: "resume_half_started" }
  | { type: "open_objective"; text: string; keyed: Keyed }
  | { type: "change_objective"; change: { status: "open" | "completed" | "blocked" | "cancelled" | "paused"; note?: string }; keyed: Keyed }
  | { type: "continue_objective" }
  | { type: "wake_objective"; event: GithubEvent }
  | { type: "write_title"; title: string; firstLineTitle: string }
  | { type: "update_conversation"; patch: ConversationPatch }
  | { type: "delete_conversation" }
  | { type: "discard_new_conversation" };

export type OwnerCommand = ConversationCommand | LifecycleCommand;

/**
 * The commands a running turn sends about itself. An index fault does not fail them: their
 * records are on disk, the turn goes on, and the index catches up from the files (the person's
 * next request hears of the fault).
 */
export const TURN_LOOP_COMMANDS: ReadonlySet<OwnerCommand["type"]> = new Set([
  "create_item",
  "complete_item",
  "take_steers",
  "request_approval",
  "ask_question",
  "write_turn_checkpoint",
  "record_checkpoint",
  "record_compaction",
  "spawn_session",
  "take_reports",
  "enqueue_message",
]);

/** What each command answers. */
export interface CommandResults {
  create_item: Item;
  complete_item: void;
  send_message: MessageOutcome;
  enqueue_message: void;
  update_waiting: Waiting;
  withdraw_waiting: void;
  take_steers: number;
  finish_turn: void;
  interrupt: Turn | null;
  request_approval: Approval;
  decide_approval: Approval;
  ask_question: Question;
  answer_question: Question;
  spawn_session: SessionState | null;
  take_reports: Array<{ childId: string; text: string }>;
  begin_compaction: AbortController;
  end_compaction: void;
  record_compaction: Item;
  wait_for_event: Objective;
  record_checkpoint: void;
  begin_restore: void;
  end_restore: void;
  checkpoint_now: void;
  write_turn_checkpoint: void;
  close_after_crash: void;
  resume_half_started: void;
  open_objective: Objective;
  change_objective: Objective;
  continue_objective: void;
  wake_objective: boolean;
  write_title: void;
  update_conversation: void;
  delete_conversation: void;
  discard_new_conversation: void;
}

export type CommandResult<C extends OwnerCommand> = C["type"] extends keyof CommandResults ? CommandResults[C["type"]] : void;


/** Applies one command; the caller (the owner's queue) runs one at a time and has checked the conversation still exists. */
export async function applyCommand<C extends OwnerCommand>(owner: OwnerState, command: C): Promise<CommandResult<C>> {
  // A turn's writes queue behind the command that starts it, so its start's fate is known here.
  const turnId = turnOfCommand(command);
  if (turnId && owner.unrecordedTurns.has(turnId)) throw new UnrecordedTurnError(turnId);
  return (await apply(owner, command)) as CommandResult<C>;
}

type TurnOf = { [K in OwnerCommand["type"]]: (command: Extract<OwnerCommand, { type: K }>) => string | null | undefined };

/** The turn each command writes for, if any: every command must say, so no write of a turn can pass by the check in applyCommand. */
const TURN_OF: TurnOf = {
  create_item: (command) => command.fields.turnId,
  complete_item: (command) => command.item.turnId,
  send_message: () => null,
  enqueue_message: () => null,
  update_waiting: () => null,
  withdraw_waiting: () => null,
  take_steers: (command) => command.turn.id,
  finish_turn: (command) => command.runner.turn.id,
  interrupt: () => null,
  request_approval: (command) => command.runner.turn.id,
  decide_approval: () => null,
  ask_question: (command) => command.runner.turn.id,
  answer_question: () => null,
  spawn_session: () => null,
  take_reports: (command) => command.turnId,
  begin_compaction: () => null,
  end_compaction: () => null,
  record_compaction: (command) => command.result.turnId,
  wait_for_event: () => null,
  record_checkpoint: (command) => command.fields.turnId,
  begin_restore: () => null,
  end_restore: () => null,
  checkpoint_now: () => null,
  pump_all: () => null,
  write_turn_checkpoint: (command) => command.turnId,
  close_after_crash: (command) => command.turn.id,
  resume_half_started: () => null,
  open_objective: () => null,
  change_objective: () => null,
  continue_objective: () => null,
  wake_objective: () => null,
  write_title: () => null,
  update_conversation: () => null,
  delete_conversation: () => null,
  discard_new_conversation: () => null,
};

/** The turn a command writes for; null or undefined: none. */
function turnOfCommand(command: OwnerCommand): string | null | undefined {
  return (TURN_OF[command.type] as (command: OwnerCommand) => string | null | undefined)(command);
}

async function apply(owner: OwnerState, command: OwnerCommand): Promise<unknown> {
  switch (command.type) {
    case "create_item":
      return owner.writeItem(owner.session(command.sessionId), command.fields);
    case "complete_item":
      return owner.finishItem(owner.session(command.sessionId), command.item, command.fields);
    case "send_message":
      return sendMessage(owner, command.input);
    case "enqueue_message": {
      const session = owner.session(command.sessionId);
      await owner.addWaiting(session, owner.context.store.newId(), command.input, "queue");
      if (!session.runner) await owner.pump(session);
      return;
    }
    case "update_waiting":
      return updateWaiting(owner, command.messageId, command.patch);
    case "withdraw_waiting":
      await owner.inbox.remove(command.messageId, "withdrawn");
      owner.inbox.publish();
      return;
    case "take_steers":
      return takeSteers(owner, owner.session(command.sessionId), command.turn);
    case "interrupt":
      return interrupt(owner, command.sessionId, command.byOwner);
    case "finish_turn":
      return closeTurn(owner, command.runner, command.status, command.error, command.reason);
    case "request_approval":
      return requestApproval(owner, command.runner, command.item);
    case "decide_approval":
      return decideApproval(owner, command.approvalId, command.decision, command.keyed);
    case "ask_question":
      return askQuestion(owner, command.runner, command.item, { question: command.question, choices: command.choices });
    case "answer_question":
      return answerQuestion(owner, command.questionId, command.answer, command.keyed);
    case "spawn_session":
      return spawnSession(owner, owner.session(command.parentSessionId), command.options);
    case "take_reports":
      return takeReports(owner, owner.session(command.parentSessionId), command.childIds, command.turnId);
    case "begin_compaction":
      return beginCompaction(owner);
    case "end_compaction":
      if (owner.manualCompaction === command.controller) owner.manualCompaction = null;
      await owner.pump(owner.root);
      return;
    case "record_compaction":
      return recordCompaction(owner, owner.session(command.sessionId), command.result);
    case "wait_for_event":
      return waitForEvent(owner, command.listener);
    case "record_checkpoint":
      owner.context.checkpoints?.remember(owner.id, await owner.records.append({ type: "checkpoint", ...command.fields }));
      return;
    case "begin_restore":
      if (owner.hasOpenTurn() || owner.manualCompaction || owner.restoring) {
        throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it before restoring files");
      }
      owner.restoring = true;
      return;
    case "end_restore":
      owner.restoring = false;
      for (const session of owner.sessions.values()) await owner.pump(session);
      return;
    case "checkpoint_now":
      for (const session of owner.sessions.values()) await session.runner?.writeCheckpoint();
      return;
    case "pump_all":
      for (const session of owner.sessions.values()) await owner.pump(session);
      return;
    default:
      return applyLifecycleCommand(owner, command);
  }
}

async function applyLifecycleCommand(owner: OwnerState, command: LifecycleCommand): Promise<unknown> {
  switch (command.type) {
    case "write_turn_checkpoint": {
      const runner = owner.session(command.sessionId).runner;
      if (runner && runner.turn.id === command.turnId) await runner.writeCheckpoint();
      return;
    }
    case "close_after_crash":
      return closeTurnAfterCrash(owner, owner.session(command.sessionId), command.turn, command.cause);
    case "resume_half_started":
      return resumeHalfStartedTurns(owner);
    case "open_objective":
      return openObjective(owner, command.text, command.keyed);
    case "change_objective":
      return changeObjective(owner, command.change, command.keyed);
    case "continue_objective":
      return continueObjective(owner);
    case "wake_objective":
      return wakeObjective(owner, command.event);
    case "write_title": {
      const current = owner.conversation();
      if (current.titleSource !== "auto" || current.title !== command.firstLineTitle || current.title === command.title) return;
      await owner.records.append({ type: "conversation.updated", title: command.title, titleSource: "auto" });
      owner.publishConversation();
      return;
    }
    case "update_conversation": {
      const changes = conversationChanges(owner.conversation(), command.patch, owner.context.models);
      if (Object.keys(changes).length === 0) return;
      await owner.records.append({ type: "conversation.updated", ...changes });
      owner.publishConversation();
      return;
    }
    case "delete_conversation":
      return deleteConversation(owner);
    case "discard_new_conversation":
      markDeleted(owner);
      return;
  }
}

const JUMP: InterruptReason = { code: "interrupted", message: OWNER_INTERRUPT_NOTICE, byOwner: true, jump: true };

async function sendMessage(owner: OwnerState, input: MessageInput): Promise<MessageOutcome> {
  const session = owner.session(input.sessionId);
  if (input.origin === "owner" && session.id === owner.rootSessionId) owner.holdWaiting = false;
  const runner = session.runner;
  const newId = () => owner.context.store.newId();
  if (!runner && mustWait(owner, session)) {
    // The message waits for the compaction, the restore or a free subagent place, as it would for a running turn.
    const messageId = newId();
    const mode = input.mode === "steer" || input.mode === "auto" ? "queue" : input.mode;
    await owner.addWaiting(session, messageId, input, mode);
    return { message: { id: messageId, mode: input.mode, status: "queued" }, turn: null };
  }
  if (!runner) {
    const turn = await owner.startTurn(session, [
      { id: newId(), text: input.text, origin: input.origin, fromSessionId: input.fromSessionId, attachments: input.attachments },
    ], input);
    return { message: { id: turn.inputMessageIds[0], mode: input.mode, status: "started" }, turn };
  }
  const mode = input.mode === "auto" ? "queue" : input.mode;
  const messageId = newId();
  await owner.addWaiting(session, messageId, input, mode, mode === "steer" ? runner.turn.id : undefined);
  if (mode === "jump") runner.interrupt(JUMP);
  const status = mode === "steer" ? "steered" : mode === "jump" ? "jumped" : "queued";
  return { message: { id: messageId, mode: input.mode, status }, turn: mode === "steer" ? cloneTurn(runner.turn) : null };
}

/** Whether a message to an idle session waits instead of starting its turn now. */
function mustWait(owner: OwnerState, session: SessionState): boolean {
  if (owner.restoring) return true;
  if (owner.manualCompaction && session.id === owner.rootSessionId) return true;
  const limit = owner.context.config.subagentConcurrencyLimit;
  return session.parentSessionId !== null && runningSubagents(owner) >= limit;
}

async function updateWaiting(owner: OwnerState, messageId: string, patch: { text?: string; mode?: "steer" | "queue" | "jump" }): Promise<Waiting> {
  const runningTurnId = owner.session(owner.inbox.find(messageId).sessionId).runner?.turn.id;
  const entry = await owner.inbox.update(messageId, patch, runningTurnId);
  const session = owner.session(entry.sessionId);
  // Asking a waiting message to run now lifts the hold an owner's interrupt put on the list.
  if (patch.mode === "jump" && entry.origin === "owner" && session.id === owner.rootSessionId) owner.holdWaiting = false;
  if (patch.mode === "jump" && session.runner) session.runner.interrupt(JUMP);
  else if (!session.runner) await owner.pump(session);
  return owner.waitingList().find((waiting) => waiting.id === messageId) ?? { ...entry };
}

/** Moves steered messages into the running turn: before each model call. */
async function takeSteers(owner: OwnerState, session: SessionState, turn: Turn): Promise<number> {
  // Only the steers sent to this turn: one left over from an ended turn starts the next turn instead.
  const steers = owner.ordered(session).filter((entry: WaitingEntry) => entry.mode === "steer" && entry.turnId === turn.id);
  for (const entry of steers) {
    await recordSteer(owner, session, turn, entry);
    await owner.inbox.remove(entry.id, "steered");
    turn.inputMessageIds.push(entry.id);
  }
  if (steers.length > 0) owner.inbox.publish();
  return steers.length;
}

function interrupt(owner: OwnerState, sessionId: string, byOwner: boolean): Turn | null {
  const session = owner.session(sessionId);
  if (byOwner && session.id === owner.rootSessionId) owner.holdWaiting = true;
  if (session.id === owner.rootSessionId) owner.manualCompaction?.abort(new Error("the owner interrupted the compaction"));
  if (!session.runner) return null;
  session.runner.interrupt({ code: "interrupted", message: OWNER_INTERRUPT_NOTICE, byOwner });
  return cloneTurn(session.runner.turn);
}

function beginCompaction(owner: OwnerState): AbortController {
  if (owner.hasOpenTurn() || owner.waiting.length > 0 || owner.manualCompaction) {
    throw new AtriumError("not_idle", "compaction needs the conversation to be idle: a turn is running or messages are waiting");
  }
  owner.manualCompaction = new AbortController();
  return owner.manualCompaction;
}

async function waitForEvent(owner: OwnerState, listener: { source: "github"; match: Record<string, unknown> }): Promise<Objective> {
  const objective = currentObjective(owner);
  if (!objective || objective.status !== "open") throw new AtriumError("not_idle", "There is no open objective in this conversation.");
  return setObjective(owner, objective, { status: "waiting_event", listener });
}
