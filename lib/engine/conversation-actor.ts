import type { EngineOwner, OwnerContext } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Approval, Conversation, Item, Objective, Question, Turn, Waiting } from "../events/entities";
import type { MessageOrigin, TurnError } from "../store/records";
import { Mutex } from "./mutex";
import { closeTurnAfterCrash, resumeHalfStartedTurns, type CrashCause } from "./crash-closing";
import { ItemWriter } from "./item-writer";
import { missingParts } from "./missing";
import { loadOwnerState } from "./owner-loading";
import { changeObjective, currentObjective, setObjective } from "./objectives";
import { answerQuestion, askQuestion, decideApproval, requestApproval } from "./parked-decisions";
import { cloneTurn, liveItems, runningTurns, type SessionState, type WaitingEntry } from "../ports/session-state";
import { ConversationSnapshot } from "./conversation-snapshot";
import { spawnSession, takeReports } from "./subagent-sessions";
import type { CompactionResult, InterruptReason, ItemCompletion, ItemFields, MessageInput, MessageOutcome, OwnerEvent, SpawnOptions, TurnHandle, TurnInput } from "../ports/owner-port";
import { OWNER_INTERRUPT_NOTICE, recordSteer } from "./turn-records";
import { resumeParkedTurn, startTurn } from "./turn-starting";
import { closeTurn } from "./turn-closing";
import { Inbox } from "./inbox";
import { recordCompaction } from "./compaction-records";

export type { MessageInput, MessageOutcome } from "../ports/owner-port";

/**
 * One conversation's live state: its sessions, their running turns and the inbox.
 * Every state change runs inside the conversation's mutex, writes to the store first
 * (flushed, then indexed) and publishes last.
 */
export class ConversationActor implements EngineOwner {
  readonly sessions = new Map<string, SessionState>();
  private inbox!: Inbox;
  /** After the owner interrupts the root agent, subagent reports wait for the owner's next message. */
  holdReports = false;
  deleted = false;
  /** Set when the server stops: nothing new starts, open turns close with server_stopped. */
  stopped = false;
  private readonly mutex = new Mutex();
  /** The conversation's row, cached until the index writer next touches it. */
  private readonly snapshot: ConversationSnapshot;
  /** Creates and completes items; knows which completions are on their way to disk. */
  private readonly items = new ItemWriter(this);
  /** A manual compaction in progress (POST …/compact): interrupt and delete abort it. */
  private manualCompaction: AbortController | null = null;
  readonly decisionWaiters = new Map<string, () => void>();
  /** wait_agents calls in progress, by the waiting parent's session id. */
  readonly reportWaiters = new Map<string, { ids: Set<string>; onReport(childId: string, text: string): void }>();

  private constructor(
    readonly context: OwnerContext,
    readonly id: string,
    readonly rootSessionId: string,
  ) {
    this.snapshot = new ConversationSnapshot(context, id);
  }

  static load(context: OwnerContext, conversationId: string): ConversationActor {
    const state = loadOwnerState(context, conversationId);
    const actor = new ConversationActor(context, conversationId, state.rootSessionId);
    for (const session of state.sessions) actor.sessions.set(session.id, session);
    actor.inbox = new Inbox(context, conversationId, state.waiting, (list) => actor.publish({ type: "queue.updated", waiting: list }));
    return actor;
  }

  /**
   * Runs one command of this conversation after the ones before it. Every command first checks
   * that the conversation still exists, so nothing is written for a deleted one.
   */
  locked<T>(section: () => Promise<T> | T): Promise<T> {
    return this.mutex.run(() => {
      this.ensureAlive();
      return section();
    });
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

  // ---- items -------------------------------------------------------------

  createItem(session: SessionState, fields: ItemFields): Promise<Item> {
    return this.items.create(session, fields);
  }

  completeItem(session: SessionState, item: Item, fields: ItemCompletion): Promise<void> {
    return this.items.complete(session, item, fields);
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

  /** The checkpoint the 2-second timer enqueues, as a command anyone (a test) may enqueue. */
  checkpointNow(): Promise<void> {
    return this.locked(async () => {
      for (const session of this.sessions.values()) await session.runner?.writeCheckpoint();
    });
  }

  /** Whether a progress checkpoint of this item may still be written (it streams and is not being completed). */
  mayCheckpoint(item: Item): boolean {
    return this.items.mayCheckpoint(item);
  }

  // ---- inbox -------------------------------------------------------------

  sendMessage(input: MessageInput): Promise<MessageOutcome> {
    return this.locked(async () => {
      this.ensureAlive();
      const session = this.session(input.sessionId);
      if (input.origin === "owner" && session.id === this.rootSessionId) this.holdReports = false;
      const runner = session.runner;
      if (!runner && this.manualCompaction && session.id === this.rootSessionId) {
        // The message waits for the compaction, as it would for a running turn.
        const messageId = this.context.store.newId();
        const mode = input.mode === "steer" || input.mode === "auto" ? "queue" : input.mode;
        await this.addWaiting(session, messageId, input, mode);
        return { message: { id: messageId, mode: input.mode, status: "queued" }, turn: null };
      }
      if (!runner) {
        const turn = await this.startTurn(session, [
          { id: this.context.store.newId(), text: input.text, origin: input.origin, fromSessionId: input.fromSessionId, attachments: input.attachments },
        ], input);
        return { message: { id: turn.inputMessageIds[0], mode: input.mode, status: "started" }, turn };
      }
      const mode = input.mode === "auto" ? "queue" : input.mode;
      const messageId = this.context.store.newId();
      await this.addWaiting(session, messageId, input, mode, mode === "steer" ? runner.turn.id : undefined);
      if (mode === "jump") runner.interrupt({ code: "interrupted", message: OWNER_INTERRUPT_NOTICE, byOwner: true, jump: true });
      const status = mode === "steer" ? "steered" : mode === "jump" ? "jumped" : "queued";
      return {
        message: { id: messageId, mode: input.mode, status },
        turn: mode === "steer" ? cloneTurn(runner.turn) : null,
      };
    });
  }

  /** A subagent's report or another engine message: waits behind the owner's messages. */
  async enqueue(session: SessionState, input: MessageInput): Promise<void> {
    await this.locked(async () => {
      this.ensureAlive();
      await this.addWaiting(session, this.context.store.newId(), input, "queue");
      if (!session.runner) await this.pump(session);
    });
  }

  updateWaiting(messageId: string, patch: { text?: string; mode?: "steer" | "queue" | "jump" }): Promise<Waiting> {
    return this.locked(async () => {
      const entry = await this.inbox.update(messageId, patch);
      const session = this.session(entry.sessionId);
      if (patch.mode === "jump" && session.runner) {
        session.runner.interrupt({ code: "interrupted", message: OWNER_INTERRUPT_NOTICE, byOwner: true, jump: true });
      } else if (!session.runner) {
        await this.pump(session);
      }
      return this.waitingList().find((waiting) => waiting.id === messageId) ?? { ...entry };
    });
  }

  withdrawWaiting(messageId: string): Promise<void> {
    return this.locked(async () => {
      await this.inbox.remove(messageId, "withdrawn");
      this.inbox.publish();
    });
  }

  /** Moves steered messages into the running turn: called before each model call. */
  takeSteers(session: SessionState, turn: Turn): Promise<number> {
    return this.locked(async () => {
      const steers = this.ordered(session).filter((entry) => entry.mode === "steer");
      for (const entry of steers) {
        await recordSteer(this, session, turn, entry);
        await this.inbox.remove(entry.id, "steered");
        turn.inputMessageIds.push(entry.id);
      }
      if (steers.length > 0) this.inbox.publish();
      return steers.length;
    });
  }

  interrupt(sessionId: string, byOwner = true): Promise<Turn | null> {
    return this.locked(() => {
      const session = this.session(sessionId);
      if (byOwner && session.id === this.rootSessionId) this.holdReports = true;
      if (session.id === this.rootSessionId) this.manualCompaction?.abort(new Error("the owner interrupted the compaction"));
      if (!session.runner) return null;
      session.runner.interrupt({ code: "interrupted", message: OWNER_INTERRUPT_NOTICE, byOwner });
      return cloneTurn(session.runner.turn);
    });
  }

  // ---- approvals and questions ---------------------------------------------

  onDecision(id: string, wake: () => void): void {
    this.decisionWaiters.set(id, wake);
  }

  requestApproval(runner: TurnHandle, item: Item): Promise<Approval> {
    return requestApproval(this, runner, item);
  }

  askQuestion(runner: TurnHandle, item: Item, asked: { question: string; choices: string[] }): Promise<Question> {
    return askQuestion(this, runner, item, asked);
  }

  decideApproval(approvalId: string, decision: "approve" | "deny"): Promise<Approval> {
    return decideApproval(this, approvalId, decision);
  }

  answerQuestion(questionId: string, answer: string): Promise<Question> {
    return answerQuestion(this, questionId, answer);
  }

  wake(id: string): void {
    const wake = this.decisionWaiters.get(id);
    this.decisionWaiters.delete(id);
    wake?.();
  }

  // ---- turns -------------------------------------------------------------

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
    return spawnSession(this, parent, options);
  }

  takeReports(parent: SessionState, childIds: ReadonlySet<string>, turnId: string) {
    return takeReports(this, parent, childIds, turnId);
  }

  closeTurnAfterCrash(session: SessionState, turn: Turn, cause: CrashCause = "server_stopped"): Promise<void> {
    return closeTurnAfterCrash(this, session, turn, cause);
  }

  resumeHalfStartedTurns(): Promise<void> {
    return resumeHalfStartedTurns(this);
  }

  /** Resumes a turn that was parked (approval or question) when the server stopped. */
  resumeParkedTurn(session: SessionState, turn: Turn): void {
    resumeParkedTurn(this, session, turn);
  }

  /** Called by a runner when its turn is over: the closing command (see turn-closing), run in the queue. */
  finishTurn(
    runner: TurnHandle,
    status: "completed" | "failed" | "interrupted",
    error: TurnError | null,
    reason: InterruptReason | null,
  ): Promise<void> {
    runner.closing = true;
    return this.mutex.run(() => closeTurn(this, runner, status, error, reason));
  }

  /** A message from the engine itself (an objective slice): persisted in the inbox, then started when the session is free. */
  async queueEngineMessage(session: SessionState, text: string, origin: MessageOrigin): Promise<void> {
    await this.addWaiting(session, this.context.store.newId(), { text, mode: "queue", sessionId: session.id, origin }, "queue");
    if (!session.runner) await this.pump(session);
  }

  /** Starts the next turn from the waiting list: jumps, then the owner's messages, then the rest. */
  async pump(session: SessionState): Promise<void> {
    if (session.runner || this.deleted || this.stopped) return;
    if (this.manualCompaction && session.id === this.rootSessionId) return;
    const inputs = this.inbox.next(session.id, this.holdReports && session.id === this.rootSessionId);
    if (inputs.length > 0) await this.startTurn(session, inputs);
  }

  pumpAll(): Promise<void> {
    return this.locked(async () => {
      for (const session of this.sessions.values()) await this.pump(session);
    });
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

  /** The server stops: nothing new starts; running turns close with server_stopped (parked ones stay parked on disk). */
  stop(): Array<Promise<void>> {
    this.stopped = true;
    const finishing: Array<Promise<void>> = [];
    for (const session of this.sessions.values()) {
      const runner = session.runner;
      if (!runner || runner.turn.status !== "running") continue;
      runner.interrupt({ code: "server_stopped", message: "The Atrium server stopped during this turn.", byOwner: false });
      finishing.push(runner.finished);
    }
    return finishing;
  }

  // ---- objective -----------------------------------------------------------

  objective(): Objective | null {
    return currentObjective(this);
  }

  changeObjective(change: { status: "completed" | "blocked" | "cancelled"; note?: string }): Promise<Objective> {
    return changeObjective(this, change);
  }

  waitForEvent(listener: { source: "github"; match: Record<string, unknown> }): Promise<Objective> {
    return this.locked(() => {
      const objective = currentObjective(this);
      if (!objective || objective.status !== "open") throw new AtriumError("not_idle", "There is no open objective in this conversation.");
      return setObjective(this, objective, { status: "waiting_event", listener });
    });
  }

  /** Starts a manual compaction: only when nothing runs or waits; its model call runs outside the queue. */
  beginManualCompaction(): Promise<AbortController> {
    return this.locked(() => {
      if (this.hasOpenTurn() || this.waiting.length > 0 || this.manualCompaction) {
        throw new AtriumError("not_idle", "compaction needs the conversation to be idle: a turn is running or messages are waiting");
      }
      this.manualCompaction = new AbortController();
      return this.manualCompaction;
    });
  }

  /** The compaction reported back: whatever waited for it starts now. */
  endManualCompaction(controller: AbortController): Promise<void> {
    return this.locked(async () => {
      if (this.manualCompaction === controller) this.manualCompaction = null;
      await this.pump(this.root);
    });
  }

  recordCompaction(session: SessionState, result: CompactionResult): Promise<Item> {
    return this.locked(() => recordCompaction(this, session, result));
  }

  /**
   * The delete command's checks and state change, after its tombstone is on disk. A turn
   * whose end is still waiting for the disk does not hold a deletion back.
   */
  assertDeletable(): void {
    const running = [...this.sessions.values()].some((session) => session.runner && !session.runner.closing);
    if (running) throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it first");
    if (this.conversation().protected) throw new AtriumError("protected", "this conversation is protected; unprotect it before deleting");
  }

  markDeleted(): void {
    this.deleted = true;
    this.manualCompaction?.abort(new Error("the conversation was deleted"));
    for (const session of this.sessions.values()) {
      const runner = session.runner;
      session.runner = null;
      runner?.settle();
    }
  }

  /**
   * Whether the Runtime may drop this owner and rebuild it from the files later: nothing runs,
   * is parked, is being compacted or is queued, and nobody is waiting on it.
   */
  get evictable(): boolean {
    return (
      this.mutex.idle &&
      this.manualCompaction === null &&
      !this.hasOpenTurn() &&
      this.decisionWaiters.size === 0 &&
      this.reportWaiters.size === 0 &&
      this.context.bus.listenerCount(this.id) === 0
    );
  }

  ensureAlive(): void {
    if (this.deleted) throw new AtriumError("not_found", `conversation ${this.id} was deleted`);
  }
}

