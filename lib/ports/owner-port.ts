import type { CompactionPoint } from "../context/compaction";
import type { Approval, Conversation, Item, Objective, Question, Turn, Waiting } from "../events/entities";
import type { ConversationEvent } from "../events/events";
import type { AttachmentRef, MessageOrigin, StoredItem, TurnError } from "../store/records";
import type { EngineContext } from "./engine-context";
import type { CheckpointFields } from "../checkpoints/checkpoints";

/**
 * The narrow interfaces of a conversation's owner and of a running turn (DESIGN §13): what the
 * modules acting on a conversation (turn loop, tools, objectives, compaction, subagents) may
 * ask of it. They import these, never the owner's class, so nothing imports in a circle.
 */

export interface InterruptReason {
  code: "interrupted" | "server_stopped";
  message: string;
  byOwner: boolean;
  jump?: boolean;
}

export interface SessionState {
  id: string;
  agent: string;
  model: string;
  parentSessionId: string | null;
  depth: number;
  createdAt: string;
  items: Item[];
  byId: Map<string, Item>;
  runner: TurnHandle | null;
  /** Input tokens the provider reported for this session's last request, for the usage figure. */
  lastReportedInput: number | null;
  /** How many items that request covered; later ones are estimated on top of the report. */
  reportedItemCount: number;
  /**
   * Reported ÷ estimated input at the provider's last report: what the estimate is scaled by, so a
   * figure without a fresh report (after a reload, a compaction, in a fork or a restart) stays on
   * the provider's basis. Null until some call reported; recorded with `turn.ended`.
   */
  calibration: number | null;
  /** The latest compaction: what the model sees starts from its summary. */
  compaction: CompactionPoint | null;
  /** For OpenAI reasoning models: the reasoning context the provider last reported applying. */
  reasoningContextApplied: "all_turns" | "current_turn" | null;
}

export interface WaitingEntry {
  id: string;
  sessionId: string;
  text: string;
  mode: "steer" | "queue" | "jump";
  origin: string;
  fromSessionId?: string;
  attachments?: AttachmentRef[];
  createdAt: string;
  position: number;
  /**
   * For a steer: the running turn it was sent to, the only one that reads it. A steer whose
   * turn ended unread (or one loaded after a restart) starts the next turn instead.
   */
  turnId?: string;
}

export interface MessageInput {
  text: string;
  attachments?: AttachmentRef[];
  mode: "auto" | "steer" | "queue" | "jump";
  sessionId: string;
  origin: MessageOrigin;
  fromSessionId?: string;
  requestKey?: string;
  requestHash?: string;
}

export interface MessageOutcome {
  message: { id: string; mode: "steer" | "queue" | "jump" | "auto"; status: "started" | "steered" | "queued" | "jumped" };
  turn: Turn | null;
}

export interface SpawnOptions {
  agent: string;
  model: string;
  task: string;
  history: boolean;
  /** Subagents that may run at once in this conversation (config subagentConcurrencyLimit). */
  concurrencyLimit: number;
}

export interface TurnInput {
  id: string;
  text: string;
  origin: string;
  fromSessionId?: string;
  fromWaiting?: boolean;
  attachments?: AttachmentRef[];
}

export type ItemFields = Omit<StoredItem, "id" | "sessionId" | "createdAt"> & { id?: string };

export interface ItemCompletion {
  status: Item["status"];
  text?: string;
  output?: string;
  exitCode?: number | null;
  sandbox?: Item["sandbox"];
  allowedBy?: Item["allowedBy"];
  artifactId?: string;
  providerMetadata?: Record<string, unknown>;
}

export interface CompactionResult {
  turnId: string | null;
  text: string;
  firstKeptItemId: string;
  tokensBefore: number;
  tokensAfter(summary: Item): number;
  signal: AbortSignal;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type OwnerEvent = DistributiveOmit<ConversationEvent, "conversationId">;

/** One running turn, as the owner and the tools see it. */
export interface TurnHandle {
  readonly actor: ConversationOwner;
  readonly session: SessionState;
  readonly turn: Turn;
  readonly signal: AbortSignal;
  readonly finished: Promise<void>;
  /** True once the turn's `turn.started` is on disk; false when the disk refused it (the turn writes nothing). */
  readonly recorded: Promise<boolean>;
  /** `turn.started` is on disk: until then the turn is not shown to readers (it may yet be refused). */
  readonly onRecord: boolean;
  reason: InterruptReason | null;
  /** Set by the compact_context tool: compact before the next model call. */
  compactRequested: boolean;
  /** The turn loop is over and its end is being recorded. */
  closing: boolean;
  /** Set when a record of the turn could not be written: the turn ends failed with this code. */
  storageFailure: TurnError | null;
  closeAttempts: number;
  noticeWritten: boolean;
  settledAlready: boolean;
  start(): void;
  interrupt(reason: InterruptReason): void;
  failOnStorage(error: TurnError): void;
  settle(): void;
  park(status: "waiting_approval" | "waiting_user", ready: (wake: () => void) => void): Promise<void>;
  appendOutput(item: Item, delta: string): void;
  writeCheckpoint(): Promise<void>;
  markStarted(item: Item): Promise<void>;
}

/** The owner of one conversation: its commands, and the reads the turn loop makes of it. */
export interface ConversationOwner {
  readonly context: EngineContext;
  readonly id: string;
  readonly rootSessionId: string;
  readonly sessions: Map<string, SessionState>;
  readonly root: SessionState;
  readonly deleted: boolean;
  /** The server is stopping: nothing new starts. */
  readonly stopped: boolean;
  readonly decisionWaiters: Map<string, () => void>;
  readonly reportWaiters: Map<string, { ids: Set<string>; onReport(childId: string, text: string): void }>;
  readonly waiting: readonly WaitingEntry[];
  /** Waiting messages whose leaving is already on record. */
  forgetWaiting(ids: ReadonlySet<string>): void;
  ensureAlive(): void;
  session(sessionId: string): SessionState;
  conversation(): Omit<Conversation, "missing">;
  waitingList(): Waiting[];
  publish(event: OwnerEvent): void;
  publishConversation(): void;
  publishQueue(): void;
  createItem(session: SessionState, fields: ItemFields): Promise<Item>;
  completeItem(session: SessionState, item: Item, fields: ItemCompletion): Promise<void>;
  mayCheckpoint(item: Item): boolean;
  sendMessage(input: MessageInput): Promise<MessageOutcome>;
  addWaiting(session: SessionState, messageId: string, input: MessageInput, mode: WaitingEntry["mode"], joinedTurnId?: string): Promise<void>;
  ordered(session: SessionState): WaitingEntry[];
  takeSteers(session: SessionState, turn: Turn): Promise<number>;
  queueEngineMessage(session: SessionState, text: string, origin: MessageOrigin): Promise<void>;
  pump(session: SessionState): Promise<void>;
  interrupt(sessionId: string, byOwner?: boolean): Promise<Turn | null>;
  onDecision(id: string, wake: () => void): void;
  /** An approval or question of this conversation as its records have it (the owner's state, not the index). */
  approval(approvalId: string): Approval | null;
  question(questionId: string): Question | null;
  /** The pending approval of a tool call, asked for once (the turn then parks on it). */
  requestApproval(runner: TurnHandle, item: Item): Promise<Approval>;
  /** The pending question of an ask_user call, asked once. */
  askQuestion(runner: TurnHandle, item: Item, asked: { question: string; choices: string[] }): Promise<Question>;
  wake(id: string): void;
  startTurn(session: SessionState, inputs: TurnInput[], request?: { requestKey?: string; requestHash?: string }, existingTurnId?: string): Promise<Turn>;
  finishTurn(runner: TurnHandle, status: "completed" | "failed" | "interrupted", error: TurnError | null, reason: InterruptReason | null): Promise<void>;
  spawnSession(parent: SessionState, options: SpawnOptions): Promise<SessionState | null>;
  takeReports(parent: SessionState, childIds: ReadonlySet<string>, turnId: string): Promise<Array<{ childId: string; text: string }>>;
  /** Appends a checkpoint's record; nothing when the conversation was deleted meanwhile. */
  recordCheckpoint(fields: CheckpointFields): Promise<void>;
  /** The conversation's objective, if it has one (DESIGN §6). */
  objective(): Objective | null;
  /** objective_update by the agent: the same command as the owner's PATCH …/objective. */
  changeObjective(change: { status: "completed" | "blocked" | "cancelled"; note?: string }): Promise<Objective>;
  /** wait_for_event: the open objective sleeps until a matching webhook event arrives. */
  waitForEvent(listener: { source: "github"; match: Record<string, unknown> }): Promise<Objective>;
  /**
   * A compaction's result (the summary item and the compaction record), written by the owner;
   * refused once `signal` is aborted. `tokensAfter` measures the context with the new summary.
   */
  recordCompaction(session: SessionState, result: CompactionResult): Promise<Item>;
  /** Starts a manual compaction when nothing runs or waits (else not_idle); its controller aborts it. */
  beginManualCompaction(): Promise<AbortController>;
  /** The manual compaction is over: whatever waited for it starts. */
  endManualCompaction(controller: AbortController): Promise<void>;
}
