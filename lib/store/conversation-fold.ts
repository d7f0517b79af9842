import type { Approval, Item, Objective, Question } from "./entities";
import type { AttachmentRef, MetadataRecord, SessionRecord, WaitingMode } from "./records";
import type { DecisionSubject } from "./record-proofs";

/**
 * A conversation's state folded from its records alone (DESIGN §2): what its owner starts from
 * and keeps current by folding every record it writes. The index holds the same facts for lists
 * and search; nothing here reads it, so an owner can be built wherever the records are.
 */

export interface FoldedSession {
  id: string;
  agent: string;
  model: string;
  parentSessionId: string | null;
  depth: number;
  createdAt: string;
  items: Item[];
  compaction: { itemId: string; firstKeptItemId: string | null; at: string } | null;
  /** The context calibration last recorded for the session (SessionState.calibration). */
  calibration: number | null;
}

export interface FoldedWaiting {
  id: string;
  sessionId: string;
  text: string;
  mode: WaitingMode;
  origin: string;
  fromSessionId?: string;
  attachments?: AttachmentRef[];
  createdAt: string;
  position: number;
  turnId?: string;
}

/** Whether an approve record's proof verifies here (RecordProofs.verifyDecision). */
export type ApproveCheck = (proof: string | undefined, subject: DecisionSubject) => boolean;

type Of<Type extends MetadataRecord["type"]> = Extract<MetadataRecord, { type: Type }>;

export class ConversationFold {
  rootSessionId = "";
  deleted = false;
  readonly sessions = new Map<string, FoldedSession>();
  /** In the order they were added: the start order is decided from this (lib/engine/inbox). */
  readonly waiting = new Map<string, FoldedWaiting>();
  readonly approvals = new Map<string, Approval>();
  readonly questions = new Map<string, Question>();
  /** What a waiting_event objective listens for (objective.updated's listener), by objective id. */
  readonly listeners = new Map<string, unknown>();
  private readonly turnSessions = new Map<string, string>();
  private objectives = new Map<string, Objective & { openedAt: string }>();
  private newest: (Objective & { openedAt: string }) | null = null;

  constructor(
    readonly conversationId: string,
    private readonly approveVerifies: ApproveCheck,
  ) {}

  /** The latest objective opened (as the index's objectiveFor picks it), or null. */
  get objective(): Objective | null {
    if (!this.newest) return null;
    const { openedAt: _openedAt, ...objective } = this.newest;
    return objective;
  }

  /** The session's items and their changes, as the index applies them (IndexWriter.applySession). */
  applySession(sessionId: string, record: SessionRecord): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    if (record.type === "item.created") {
      session.items.push(foldedItem(record.item, record.seq));
      return;
    }
    const item = session.items.find((candidate) => candidate.id === record.itemId);
    if (!item) return;
    if (record.type === "item.progress") {
      if (item.kind === "tool_call") Object.assign(item, { output: record.text, status: "streaming" });
      else item.text = record.text;
      return;
    }
    item.status = record.status;
    for (const key of ["text", "output", "exitCode", "sandbox", "artifactId", "providerMetadata"] as const) {
      const value = record[key];
      if (value !== undefined && value !== null) Object.assign(item, { [key]: value });
    }
  }

  applyMetadata(record: MetadataRecord): void {
    switch (record.type) {
      case "conversation.created":
        this.rootSessionId = record.rootSessionId;
        return;
      case "conversation.deleted":
        this.deleted = true;
        return;
      case "session.created":
        this.sessions.set(record.sessionId, {
          id: record.sessionId,
          agent: record.agent,
          model: record.model,
          parentSessionId: record.parentSessionId ?? null,
          depth: record.depth ?? 0,
          createdAt: record.at,
          items: [],
          compaction: null,
          calibration: record.contextCalibration ?? null,
        });
        return;
      case "turn.started":
        this.turnSessions.set(record.turnId, record.sessionId);
        return;
      case "turn.ended": {
        const session = this.sessions.get(this.turnSessions.get(record.turnId) ?? "");
        if (session && record.contextCalibration !== undefined) session.calibration = record.contextCalibration;
        return;
      }
      case "queue.added":
        return this.queueAdded(record);
      case "queue.updated": {
        const entry = this.waiting.get(record.messageId);
        if (entry && record.text !== undefined) entry.text = record.text;
        if (entry && record.mode !== undefined) entry.mode = record.mode;
        if (entry && record.turnId !== undefined) {
          if (record.turnId === null) delete entry.turnId;
          else entry.turnId = record.turnId;
        }
        return;
      }
      case "queue.removed":
        this.waiting.delete(record.messageId);
        return;
      case "approval.requested":
      case "approval.decided":
        return this.approval(record);
      case "question.asked":
      case "question.answered":
        return this.question(record);
      case "objective.opened":
      case "objective.updated":
        return this.objectiveChanged(record);
      case "compaction":
        return this.compaction(record);
    }
  }

  private queueAdded(record: Of<"queue.added">): void {
    this.waiting.set(record.messageId, {
      id: record.messageId,
      sessionId: record.sessionId,
      text: record.text,
      mode: record.mode,
      origin: record.origin,
      ...(record.fromSessionId ? { fromSessionId: record.fromSessionId } : {}),
      ...(record.attachments ? { attachments: record.attachments } : {}),
      createdAt: record.at,
      position: record.seq,
      ...(record.turnId ? { turnId: record.turnId } : {}),
    });
  }

  private approval(record: Of<"approval.requested" | "approval.decided">): void {
    if (record.type === "approval.requested") {
      this.approvals.set(record.approvalId, {
        id: record.approvalId,
        conversationId: this.conversationId,
        sessionId: record.sessionId,
        turnId: record.turnId,
        itemId: record.itemId,
        toolName: record.toolName,
        input: record.input ?? null,
        status: "pending",
        createdAt: record.at,
        decidedAt: null,
      });
      return;
    }
    const approval = this.approvals.get(record.approvalId);
    if (!approval) return;
    // A forged or copied approve leaves the approval pending: only the owner here can decide it.
    const subject = { conversationId: this.conversationId, approvalId: approval.id, itemId: approval.itemId, toolName: approval.toolName, input: approval.input };
    if (record.decision === "approve" && !this.approveVerifies(record.proof, subject)) return;
    approval.status = record.decision === "approve" ? "approved" : "denied";
    approval.decidedAt = record.at;
  }

  private question(record: Of<"question.asked" | "question.answered">): void {
    if (record.type === "question.asked") {
      this.questions.set(record.questionId, {
        id: record.questionId,
        conversationId: this.conversationId,
        sessionId: record.sessionId,
        turnId: record.turnId,
        itemId: record.itemId,
        question: record.question,
        choices: record.choices,
        status: "pending",
        answer: null,
      });
      return;
    }
    const question = this.questions.get(record.questionId);
    if (!question) return;
    question.status = record.cancelled ? "cancelled" : "answered";
    question.answer = record.cancelled ? null : record.answer;
  }

  private objectiveChanged(record: Of<"objective.opened" | "objective.updated">): void {
    if (record.type === "objective.opened") {
      const opened = { id: record.objectiveId, text: record.text, status: "open" as const, slices: 0, sliceLimit: record.sliceLimit, reason: null, openedAt: record.at };
      this.objectives.set(opened.id, opened);
      const newest = this.newest;
      if (!newest || opened.openedAt > newest.openedAt || (opened.openedAt === newest.openedAt && opened.id > newest.id)) this.newest = opened;
      return;
    }
    const objective = this.objectives.get(record.objectiveId);
    if (!objective) return;
    if (record.status !== undefined) objective.status = record.status;
    if (record.slices !== undefined) objective.slices = record.slices;
    if (record.reason !== undefined) objective.reason = record.reason;
    if (record.listener !== undefined) this.listeners.set(objective.id, record.listener);
  }

  private compaction(record: Of<"compaction">): void {
    const session = this.sessions.get(record.sessionId);
    if (!session) return;
    const latest = session.compaction;
    if (latest && (latest.at > record.at || (latest.at === record.at && latest.itemId > record.itemId))) return;
    session.compaction = { itemId: record.itemId, firstKeptItemId: record.firstKeptItemId, at: record.at };
  }
}

/** An item as the API shows it: the stored fields that are set, and its record's seq. */
function foldedItem(stored: Extract<SessionRecord, { type: "item.created" }>["item"], seq: number): Item {
  const item: Item = { id: stored.id, seq, sessionId: stored.sessionId, turnId: stored.turnId, kind: stored.kind, status: stored.status, createdAt: stored.createdAt };
  for (const key of ["text", "toolName", "toolCallId", "output", "exitCode", "artifactId", "origin", "fromSessionId", "attachments", "providerMetadata"] as const) {
    const value = stored[key];
    if (value !== undefined && value !== null) Object.assign(item, { [key]: value });
  }
  // The index keeps an input of null as JSON "null", so it is shown as null, not left out.
  if (stored.input !== undefined) item.input = stored.input;
  return item;
}

/** Where a fold reads a conversation's records from: its metadata log and its sessions' logs. */
export interface FoldSource {
  readMetadata(conversationId: string): { records: Array<{ record: MetadataRecord }> };
  readSession(conversationId: string, sessionId: string): { records: Array<{ record: SessionRecord }> };
}

/**
 * Folds one conversation's files. Null when it has no conversation.created or was deleted. Torn
 * or invalid lines are skipped here as ingest skips them (reindex reports them).
 */
export function foldConversation(source: FoldSource, conversationId: string, approveVerifies: ApproveCheck): ConversationFold | null {
  const fold = new ConversationFold(conversationId, approveVerifies);
  const metadata = source.readMetadata(conversationId).records;
  if (metadata[0]?.record.type !== "conversation.created") return null;
  for (const { record } of metadata) fold.applyMetadata(record);
  if (fold.deleted) return null;
  for (const sessionId of fold.sessions.keys()) {
    for (const { record } of source.readSession(conversationId, sessionId).records) fold.applySession(sessionId, record);
  }
  return fold;
}
