import type { TimelineEntry, Turn } from "../events/entities";
import type { Store } from "../store/store";

/**
 * A turn's run timeline (DESIGN §6), read back from the records: every tool call's
 * start and end, steered messages, approvals and questions, compactions.
 */
export function buildTimeline(store: Store, turn: Turn): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const session = store.readSession(turn.conversationId, turn.sessionId).records.map(({ record }) => record);
  const toolCalls = new Map<string, TimelineEntry>();
  const current: { modelCall: TimelineEntry | null } = { modelCall: null };
  /** This turn's model output items: only their completion ends a model call (a later turn's must not). */
  const modelItems = new Set<string>();
  const openModelCall = (at: string) => {
    if (!current.modelCall) {
      current.modelCall = { kind: "model_call", startedAt: at, endedAt: at, status: "completed" };
      entries.push(current.modelCall);
    }
    current.modelCall.endedAt = at;
  };
  for (const record of session) {
    if (record.type === "item.created") {
      const item = record.item;
      if (item.turnId !== turn.id) continue;
      if (item.kind === "tool_call") {
        openModelCall(record.at);
        current.modelCall = null;
        const entry: TimelineEntry = { kind: "tool_call", startedAt: record.at, endedAt: null, status: item.status, name: item.toolName, itemId: item.id };
        toolCalls.set(item.id, entry);
        entries.push(entry);
      } else if (item.kind === "user_message" && !turn.inputMessageIds.slice(0, 1).includes(item.id)) {
        entries.push({ kind: "steer", startedAt: record.at, endedAt: record.at, status: "completed", itemId: item.id });
      } else if (item.kind === "assistant_message" || item.kind === "reasoning") {
        openModelCall(record.at);
        modelItems.add(item.id);
      }
    } else if (record.type === "item.progress") {
      const entry = toolCalls.get(record.itemId);
      if (entry && entry.status === "waiting") {
        entry.startedAt = record.at;
        entry.status = "streaming";
      }
    } else if (record.type === "item.completed") {
      const entry = toolCalls.get(record.itemId);
      if (entry) {
        entry.endedAt = record.at;
        entry.status = record.status;
        if (record.sandbox) entry.sandbox = record.sandbox;
      } else if (current.modelCall && modelItems.has(record.itemId)) {
        current.modelCall.endedAt = record.at;
        if (record.status === "failed") current.modelCall.status = "failed";
      }
    }
  }
  const metadata = store.readMetadata(turn.conversationId).records.map(({ record }) => record);
  const approvals = new Map<string, TimelineEntry>();
  for (const record of metadata) {
    if (record.type === "approval.requested" && record.turnId === turn.id) {
      const entry: TimelineEntry = { kind: "approval", startedAt: record.at, endedAt: null, status: "pending", name: record.toolName, itemId: record.itemId };
      approvals.set(record.approvalId, entry);
      entries.push(entry);
    } else if (record.type === "approval.decided" && approvals.has(record.approvalId)) {
      const entry = approvals.get(record.approvalId)!;
      entry.endedAt = record.at;
      entry.status = record.decision === "approve" ? "approved" : "denied";
    } else if (record.type === "question.asked" && record.turnId === turn.id) {
      const entry: TimelineEntry = { kind: "question", startedAt: record.at, endedAt: null, status: "pending", itemId: record.itemId };
      approvals.set(record.questionId, entry);
      entries.push(entry);
    } else if (record.type === "question.answered" && approvals.has(record.questionId)) {
      const entry = approvals.get(record.questionId)!;
      entry.endedAt = record.at;
      entry.status = "answered";
    }
  }
  return entries.sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
}
