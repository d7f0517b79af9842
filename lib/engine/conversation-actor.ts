import type { OwnerContext } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Approval, Conversation, Item, Objective, Question, Turn, Waiting } from "../events/entities";
import type { MessageOrigin, TurnError } from "../store/records";
import { Mutex } from "./mutex";
import type { CrashCause } from "./crash-closing";
import { ItemWriter } from "./item-writer";
import { missingParts } from "./missing";
import { loadOwnerState } from "./owner-loading";
import { OwnerRecords } from "./owner-records";
import { applyTurnReport, type TurnReport } from "./turn-reports";
import type { Keyed } from "./objectives";
import { liveItems, runningTurns, type SessionState, type WaitingEntry } from "../ports/session-state";
import { ConversationSnapshot } from "./conversation-snapshot";
import type { CompactionResult, InterruptReason, ItemCompletion, ItemFields, MessageInput, MessageOutcome, OwnerEvent, SpawnOptions, TurnHandle, TurnInput } from "../ports/owner-port";
import { resumeParkedTurn, startNextTurn, startTurn } from "./turn-starting";
import { Inbox } from "./inbox";
import { applyCommand, TURN_LOOP_COMMANDS, type CommandResult, type OwnerCommand } from "./owner-commands";
import type { OwnerState } from "./owner-state";
import type { CheckpointFields } from "../checkpoints/checkpoints";

export type { MessageInput, MessageOutcome } from "../ports/owner-port";

/**
 * One conversation's owner: its sessions, their running turns and the inbox. Every change is
 * a command of the closed set in owner-commands, applied one at a time by `execute`; each
 * writes to the store first (flushed, then indexed) and publishes last.
 */
export class ConversationActor implements OwnerState {
  readonly sessions = new Map<string, SessionState>();
  inbox!: Inbox;
  /** After the owner interrupts the root agent, nothing waiting starts (reports and the owner's own messages) until the owner sends or jumps one. */
  holdWaiting = false;
  deleted = false;
  /** Set when the server stops: nothing new starts, open turns close with server_stopped. */
  stopped = false;
  readonly unrecordedTurns = new Set<string>();
  private readonly mutex = new Mutex();
  /** The conversation's row, cached until the index writer next touches it. */
  private readonly snapshot: ConversationSnapshot;
  /** Creates and completes items; knows which completions are on their way to disk. */
  private readonly items = new ItemWriter(this);
  /** A manual compaction in progress (POST …/compact): interrupt and delete abort it. */
  manualCompaction: AbortController | null = null;
  /** A rewind is restoring files (begin_restore … end_restore): messages wait, nothing starts. */
  restoring = false;
  /** Work of this owner running outside its queue (a title's model call): it is not evicted meanwhile. */
  private outsideWork = 0;
  /** Dropped from the cache: a late command through this stale owner is refused, never written. */
  private retired = false;
  readonly decisionWaiters = new Map<string, () => void>();
  /** wait_agents calls in progress, by the waiting parent's session id. */
  readonly reportWaiters = new Map<string, { ids: Set<string>; onReport(childId: string, text: string): void }>();

  private constructor(
    readonly context: OwnerContext,
    readonly id: string,
    readonly rootSessionId: string,
    readonly records: OwnerRecords,
  ) {
    this.snapshot = new ConversationSnapshot(context, id);
  }

  static load(context: OwnerContext, conversationId: string): ConversationActor {
    const state = loadOwnerState(context.store, conversationId);
    const actor = new ConversationActor(context, conversationId, state.rootSessionId, new OwnerRecords(context.store, conversationId, state.fold));
    for (const session of state.sessions) actor.sessions.set(session.id, session);
    actor.inbox = new Inbox(actor.records, state.waiting, (list) => actor.publish({ type: "queue.updated", waiting: list }));
    return actor;
  }

  /**
   * Runs one command of this conversation after the ones before it. Every command first checks
   * that the conversation still exists, so nothing is written for a deleted one.
   */
  locked<T>(section: () => Promise<T> | T, answerIndexFault = true): Promise<T> {
    return this.mutex.run(async () => {
      this.ensureAlive();
      let fault: Error | null = null;
      this.records.beginCommand();
      const result = await Promise.resolve().then(section).finally(() => (fault = this.records.endCommand()));
      // Every record of the command is on disk and in this owner's state; only the index is behind.
      if (fault && answerIndexFault) throw fault;
      return result;
    });
  }

  /** Applies one command of the closed set (owner-commands), after the ones before it (see TURN_LOOP_COMMANDS on index faults). */
  execute<C extends OwnerCommand>(command: C): Promise<CommandResult<C>> {
    return this.locked(() => applyCommand(this, command), !TURN_LOOP_COMMANDS.has(command.type));
  }

  session(sessionId: string): SessionState {
    const session = this.sessions.get(sessionId);
    if (!session) throw new AtriumError("not_found", `session ${sessionId} was not found in conversation ${this.id}`);
    return session;
  }

  get root(): SessionState {
    return this.session(this.rootSessionId);
  }

  /** Read on every model call; cached until the index writer next touches this conversation. Callers get their own copy. */
  conversation(): Omit<Conversation, "missing"> {
    return this.snapshot.read();
  }

  waitingList(): Waiting[] {
    return this.inbox.list();
  }

  get waiting(): readonly WaitingEntry[] {
    return this.inbox.all;
  }

  /** Waiting messages whose leaving is already on record (recovery, a report taken by wait_agents). */
  forgetWaiting(ids: ReadonlySet<string>): void {
    this.inbox.forget(ids);
  }

  runningTurns(): Turn[] {
    return runningTurns(this.sessions.values());
  }

  hasOpenTurn(): boolean {
    return [...this.sessions.values()].some((session) => session.runner !== null);
  }

  /** Items of the running turns, partial text included: what a new SSE client starts from. */
  liveItems(): Item[] {
    return liveItems(this.sessions.values());
  }

  /** A new item, as a command: for work running outside the queue (the turn loop, tools). */
  createItem(session: SessionState, fields: ItemFields): Promise<Item> {
    return this.execute({ type: "create_item", sessionId: session.id, fields });
  }

  /** An item's end, as a command: for work running outside the queue. */
  completeItem(session: SessionState, item: Item, fields: ItemCompletion): Promise<void> {
    return this.execute({ type: "complete_item", sessionId: session.id, item, fields });
  }

  /** Inside a command only: writes the item without queueing (the command holds the queue); `flushed`: see ItemWriter.create. */
  writeItem(session: SessionState, fields: ItemFields, flushed?: (item: Item) => void): Promise<Item> {
    return this.items.create(session, fields, flushed);
  }

  /** Inside a command only: completes the item without queueing. */
  finishItem(session: SessionState, item: Item, fields: ItemCompletion): Promise<void> {
    return this.items.complete(session, item, fields);
  }

  report(report: TurnReport): void {
    applyTurnReport(this, report);
  }

  publish(event: OwnerEvent): void {
    this.context.bus.publish({ ...event, conversationId: this.id } as Parameters<OwnerContext["bus"]["publish"]>[0]);
  }

  publishConversation(): void {
    const conversation = this.conversation();
    const full = { ...conversation, missing: missingParts(conversation, this.context) };
    this.publish({ type: "conversation.updated", conversation: full });
    this.context.bus.publishList({ type: "conversation.updated", conversationId: this.id, conversation: full });
  }

  /** A rewind puts files back: refused while a turn runs; until endRestore nothing starts. */
  beginRestore(): Promise<void> {
    return this.execute({ type: "begin_restore" });
  }

  endRestore(): Promise<void> {
    return this.execute({ type: "end_restore" });
  }

  checkpointTurn(sessionId: string, turnId: string): Promise<void> {
    return this.execute({ type: "write_turn_checkpoint", sessionId, turnId });
  }

  checkpointNow(): Promise<void> {
    return this.execute({ type: "checkpoint_now" });
  }

  /** Whether a progress checkpoint of this item may still be written (it streams and is not being completed). */
  mayCheckpoint(item: Item): boolean {
    return this.items.mayCheckpoint(item);
  }

  sendMessage(input: MessageInput): Promise<MessageOutcome> {
    return this.execute({ type: "send_message", input });
  }

  /** A subagent's report or another engine message: waits behind the owner's messages. */
  enqueue(session: SessionState, input: MessageInput): Promise<void> {
    return this.execute({ type: "enqueue_message", sessionId: session.id, input });
  }

  updateWaiting(messageId: string, patch: { text?: string; mode?: "steer" | "queue" | "jump" }): Promise<Waiting> {
    return this.execute({ type: "update_waiting", messageId, patch });
  }

  withdrawWaiting(messageId: string): Promise<void> {
    return this.execute({ type: "withdraw_waiting", messageId });
  }

  /** Moves steered messages into the running turn: called before each model call. */
  takeSteers(session: SessionState, turn: Turn): Promise<number> {
    // Nothing steered into this turn: no command, which would wait behind the turn's queued records (its start checkpoint).
    if (!this.waiting.some((entry) => entry.mode === "steer" && entry.turnId === turn.id)) return Promise.resolve(0);
    return this.execute({ type: "take_steers", sessionId: session.id, turn });
  }

  interrupt(sessionId: string, byOwner = true): Promise<Turn | null> {
    return this.execute({ type: "interrupt", sessionId, byOwner });
  }

  /** A parked turn waits for this decision; one already made (between the ask and the park) wakes it at once. */
  onDecision(id: string, wake: () => void): void {
    const decided = (this.records.approval(id)?.status ?? "pending") !== "pending" || (this.records.question(id)?.status ?? "pending") !== "pending";
    if (decided) return wake();
    this.decisionWaiters.set(id, wake);
  }

  approval(approvalId: string): Approval | null {
    return this.records.approval(approvalId);
  }

  question(questionId: string): Question | null {
    return this.records.question(questionId);
  }

  requestApproval(runner: TurnHandle, item: Item): Promise<Approval> {
    return this.execute({ type: "request_approval", runner, item });
  }

  askQuestion(runner: TurnHandle, item: Item, asked: { question: string; choices: string[] }): Promise<Question> {
    return this.execute({ type: "ask_question", runner, item, ...asked });
  }

  decideApproval(approvalId: string, decision: "approve" | "deny", keyed: { requestKey?: string; requestHash?: string } = {}): Promise<Approval> {
    return this.execute({ type: "decide_approval", approvalId, decision, keyed });
  }

  answerQuestion(questionId: string, answer: string, keyed: { requestKey?: string; requestHash?: string } = {}): Promise<Question> {
    return this.execute({ type: "answer_question", questionId, answer, keyed });
  }

  wake(id: string): void {
    const wake = this.decisionWaiters.get(id);
    this.decisionWaiters.delete(id);
    wake?.();
  }

  startTurn(
    session: SessionState,
    inputs: TurnInput[],
    request?: { requestKey?: string; requestHash?: string },
    existingTurnId?: string,
  ): Promise<Turn> {
    return startTurn(this, session, inputs, request, existingTurnId);
  }

  /** spawn_agent: a new session in this conversation, started on its task at once. */
  spawnSession(parent: SessionState, options: SpawnOptions): Promise<SessionState | null> {
    return this.execute({ type: "spawn_session", parentSessionId: parent.id, options });
  }

  takeReports(parent: SessionState, childIds: ReadonlySet<string>, turnId: string): Promise<Array<{ childId: string; text: string }>> {
    return this.execute({ type: "take_reports", parentSessionId: parent.id, childIds, turnId });
  }

  closeTurnAfterCrash(session: SessionState, turn: Turn, cause: CrashCause = "server_stopped"): Promise<void> {
    return this.execute({ type: "close_after_crash", sessionId: session.id, turn, cause });
  }

  resumeHalfStartedTurns(): Promise<void> {
    return this.execute({ type: "resume_half_started" });
  }

  /** Resumes a turn that was parked (approval or question) when the server stopped. */
  resumeParkedTurn(session: SessionState, turn: Turn): Promise<void> {
    return resumeParkedTurn(this, session, turn);
  }

  /** Called by a runner when its turn is over: the closing command (see turn-closing), run in the queue. */
  finishTurn(
    runner: TurnHandle,
    status: "completed" | "failed" | "interrupted",
    error: TurnError | null,
    reason: InterruptReason | null,
  ): Promise<void> {
    runner.closing = true;
    // Not `execute`: a turn of a conversation deleted meanwhile still settles (closeTurn sees `deleted`).
    // Nobody waits on a turn's end for an answer: records the index missed are caught up from the files.
    const command = { type: "finish_turn", runner, status, error, reason } as const;
    return this.mutex.run(() => {
      this.records.beginCommand();
      return applyCommand(this, command).finally(() => this.records.endCommand());
    });
  }

  /** A message from the engine itself (an objective slice): persisted in the inbox, then started when the session is free. */
  async queueEngineMessage(session: SessionState, text: string, origin: MessageOrigin): Promise<void> {
    await this.addWaiting(session, this.context.store.newId(), { text, mode: "queue", sessionId: session.id, origin }, "queue");
    if (!session.runner) await this.pump(session);
  }

  /** Starts the next turn from the waiting list: jumps, then the owner's messages, then the rest. */
  pump(session: SessionState): Promise<void> {
    return startNextTurn(this, session);
  }

  pumpAll(): Promise<void> {
    return this.execute({ type: "pump_all" });
  }

  ordered(session: SessionState): WaitingEntry[] {
    return this.inbox.ordered(session.id);
  }

  addWaiting(session: SessionState, messageId: string, input: MessageInput, mode: WaitingEntry["mode"], joinedTurnId?: string): Promise<void> {
    return this.inbox.add(session.id, messageId, input, mode, joinedTurnId);
  }

  publishQueue(): void {
    this.inbox.publish();
  }

  objective(): Objective | null {
    return this.records.objective();
  }

  changeObjective(change: { status: "open" | "completed" | "blocked" | "cancelled" | "paused"; note?: string }, keyed: Keyed = {}): Promise<Objective> {
    return this.execute({ type: "change_objective", change, keyed });
  }

  waitForEvent(listener: { source: "github"; match: Record<string, unknown> }): Promise<Objective> {
    return this.execute({ type: "wait_for_event", listener });
  }

  /** A checkpoint's record; a conversation deleted meanwhile records nothing. */
  async recordCheckpoint(fields: CheckpointFields): Promise<void> {
    if (this.deleted) return;
    await this.execute({ type: "record_checkpoint", fields }).catch((error: unknown) => {
      if (!this.deleted) throw error;
    });
  }

  /** Starts a manual compaction: only when nothing runs or waits; its model call runs outside the queue. */
  beginManualCompaction(): Promise<AbortController> {
    return this.execute({ type: "begin_compaction" });
  }

  /** The compaction reported back: whatever waited for it starts now. */
  endManualCompaction(controller: AbortController): Promise<void> {
    return this.execute({ type: "end_compaction", controller });
  }

  recordCompaction(session: SessionState, result: CompactionResult): Promise<Item> {
    return this.execute({ type: "record_compaction", sessionId: session.id, result });
  }

  /** Nothing runs, is parked, compacted or queued, and nobody waits on it: it may move to another node (its watchers follow). */
  get idle(): boolean {
    const { mutex, outsideWork, restoring, manualCompaction, decisionWaiters, reportWaiters } = this;
    return mutex.idle && outsideWork === 0 && !restoring && manualCompaction === null && !this.hasOpenTurn() && decisionWaiters.size === 0 && reportWaiters.size === 0;
  }

  /** Idle and unwatched: the Runtime may drop this owner and rebuild it from its records later. */
  get evictable(): boolean {
    return this.idle && this.context.bus.listenerCount(this.id) === 0;
  }

  /** Counts `work` (running outside the queue) as this owner's until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.outsideWork += 1;
    work.finally(() => (this.outsideWork -= 1)).catch(() => undefined);
    return work;
  }

  /** The cache dropped this owner: the next one is built from the records. */
  retire(): void {
    this.retired = true;
  }

  ensureAlive(): void {
    if (this.retired) throw new Error(`the owner of conversation ${this.id} was dropped from memory; its late work is not recorded`);
    if (this.deleted) throw new AtriumError("not_found", `conversation ${this.id} was deleted`);
  }
}

