import type { MetadataRecord, SessionRecord } from "@/lib/store/records";
import type { IdGenerator } from "@/lib/store/ids";
import type { RecordStore } from "@/lib/store/record-store";
import { item } from "./conversation-fixtures";

export interface EveryRecordType {
  conversationId: string;
  rootSessionId: string;
  subagentSessionId: string;
  metadata: MetadataRecord[];
  sessions: Map<string, SessionRecord[]>;
}

/**
 * One conversation holding every record type of records.ts and every item kind, written through
 * the Store the way the engine writes them (a turn parked on an approval and a question, a subagent,
 * a compaction, queued messages, an objective, an empty streamed answer, a rename and archive).
 * conversation.deleted is left out: it removes the conversation.
 */
/** Any backend of the owner's record store (files or PostgreSQL), with the ids it numbers things by. */
export type RecordWriter = RecordStore & { newId: IdGenerator; now: () => Date };

export async function appendEveryRecordType(store: RecordWriter, title = "Every record"): Promise<EveryRecordType> {
  const conversationId = store.newId();
  const rootSessionId = store.newId();
  const subagentSessionId = store.newId();
  const [turnId, failedTurnId, subagentTurnId] = [store.newId(), store.newId(), store.newId()];
  const [messageId, reasoningId, toolCallId, answerId, noticeId, summaryId, reportId, emptyAnswerId] = Array.from(
    { length: 8 },
    () => store.newId(),
  );
  const [subagentMessageId, subagentAnswerId] = [store.newId(), store.newId()];
  const [approvalId, questionId, queuedId, withdrawnId, objectiveId, retractedId] = Array.from(
    { length: 6 },
    () => store.newId(),
  );

  const metadata: MetadataRecord[] = [];
  const sessions = new Map<string, SessionRecord[]>([
    [rootSessionId, []],
    [subagentSessionId, []],
  ]);
  const meta = async (body: Parameters<RecordStore["appendMetadata"]>[1]) => {
    metadata.push(await store.appendMetadata(conversationId, body));
  };
  const session = async (sessionId: string, body: Parameters<RecordStore["appendSession"]>[2]) => {
    sessions.get(sessionId)!.push(await store.appendSession(conversationId, sessionId, body));
  };
  const created = async (sessionId: string, fields: Omit<Parameters<typeof item>[1], "sessionId">) =>
    session(sessionId, { type: "item.created", item: item(store, { sessionId, ...fields }) });

  await meta({
    type: "conversation.created",
    conversationId,
    title,
    titleSource: "auto",
    agent: "default",
    model: "offline",
    effort: "medium",
    cwd: "/srv/project",
    executor: "local",
    rootSessionId,
    forkedFrom: null,
    protected: false,
    requestKey: `create-${conversationId}`,
    requestHash: "hash-create",
  });
  await meta({
    type: "session.created", sessionId: rootSessionId, agent: "default", model: "offline",
    parentSessionId: null, depth: 0,
  });
  await created(rootSessionId, {
    id: messageId, turnId, kind: "user_message", status: "completed",
    text: "Please list the files of the zebra project", origin: "owner",
    attachments: [{ id: store.newId(), name: "notes.txt", mediaType: "text/plain", bytes: 12 }],
  });
  await meta({
    type: "turn.started",
    turnId,
    sessionId: rootSessionId,
    model: "offline",
    effort: "medium",
    inputMessageIds: [messageId],
    requestKey: "send-1",
    requestHash: "hash-send",
  });
  await created(rootSessionId, { id: reasoningId, turnId, kind: "reasoning", status: "streaming", text: "" });
  await session(rootSessionId, { type: "item.progress", itemId: reasoningId, text: "thinking about zebras" });
  await session(rootSessionId, {
    type: "item.completed", itemId: reasoningId, status: "completed", text: "thinking about zebras, done",
  });
  await created(rootSessionId, {
    id: toolCallId, turnId, kind: "tool_call", status: "waiting", toolName: "shell", toolCallId: "call-1",
    input: { command: "ls" },
  });
  await meta({
    type: "approval.requested", approvalId, sessionId: rootSessionId, turnId, itemId: toolCallId,
    toolName: "shell", input: { command: "ls" },
  });
  await meta({ type: "approval.decided", approvalId, decision: "approve" });
  await session(rootSessionId, {
    type: "item.completed", itemId: toolCallId, status: "completed", output: "a.txt\nb.txt", exitCode: 0,
  });
  await meta({
    type: "question.asked", questionId, sessionId: rootSessionId, turnId, itemId: toolCallId,
    question: "Which file?", choices: ["a.txt", "b.txt"],
  });
  await meta({ type: "question.answered", questionId, answer: "a.txt" });

  await meta({
    type: "session.created", sessionId: subagentSessionId, agent: "explorer", model: "offline",
    parentSessionId: rootSessionId, spawnedBy: toolCallId, depth: 1,
  });
  await created(subagentSessionId, {
    id: subagentMessageId, turnId: subagentTurnId, kind: "user_message", status: "completed",
    text: "look at a.txt", origin: "subagent",
  });
  await meta({
    type: "turn.started", turnId: subagentTurnId, sessionId: subagentSessionId, model: "offline",
    effort: null, inputMessageIds: [subagentMessageId],
  });
  await created(subagentSessionId, {
    id: subagentAnswerId, turnId: subagentTurnId, kind: "assistant_message", status: "completed",
    text: "a.txt holds a giraffe",
  });
  await meta({
    type: "turn.ended", turnId: subagentTurnId, status: "completed", error: null,
    usage: { inputTokens: 5, outputTokens: 6 },
  });
  await created(rootSessionId, {
    id: reportId, turnId, kind: "subagent_report", status: "completed", text: "a.txt holds a giraffe",
    fromSessionId: subagentSessionId,
  });

  await created(rootSessionId, { id: answerId, turnId, kind: "assistant_message", status: "streaming", text: "" });
  await session(rootSessionId, { type: "item.progress", itemId: answerId, text: "The zebra project has" });
  await session(rootSessionId, {
    type: "item.completed", itemId: answerId, status: "completed",
    text: "The zebra project has a.txt and b.txt",
  });
  await meta({
    type: "turn.ended", turnId, status: "completed", error: null,
    usage: { inputTokens: 120, outputTokens: 30 },
  });

  await meta({
    type: "queue.added", messageId: queuedId, sessionId: rootSessionId, text: "and then?", mode: "queue",
    origin: "owner", requestKey: "queue-1", requestHash: "hash-queue",
  });
  await meta({ type: "queue.updated", messageId: queuedId, text: "and then what?", mode: "steer" });
  await meta({
    type: "queue.added", messageId: withdrawnId, sessionId: rootSessionId, text: "never mind", mode: "jump",
    origin: "owner",
  });
  await meta({ type: "queue.removed", messageId: withdrawnId, reason: "withdrawn" });

  await meta({
    type: "turn.started", turnId: failedTurnId, sessionId: rootSessionId, model: "offline", effort: "high",
    inputMessageIds: [],
  });
  // An answer that never got a word out: its empty text must not reach full-text search.
  await created(rootSessionId, {
    id: emptyAnswerId, turnId: failedTurnId, kind: "assistant_message", status: "streaming", text: "",
  });
  await session(rootSessionId, { type: "item.completed", itemId: emptyAnswerId, status: "interrupted" });
  // And one whose streamed words were taken back: the search row of "draft words" must go too.
  await created(rootSessionId, {
    id: retractedId, turnId: failedTurnId, kind: "assistant_message", status: "streaming", text: "",
  });
  await session(rootSessionId, { type: "item.progress", itemId: retractedId, text: "draft words" });
  await session(rootSessionId, { type: "item.completed", itemId: retractedId, status: "failed", text: "" });
  await created(rootSessionId, {
    id: noticeId, turnId: failedTurnId, kind: "notice", status: "completed",
    text: "the previous turn was interrupted by the owner",
  });
  await meta({
    type: "turn.ended", turnId: failedTurnId, status: "failed",
    error: { code: "provider_error", message: "503 from provider" },
    usage: { inputTokens: 0, outputTokens: 0 },
  });

  await created(rootSessionId, {
    id: summaryId, turnId: null, kind: "compaction_summary", status: "completed",
    text: "Summary: zebra files",
  });
  await meta({
    type: "compaction", sessionId: rootSessionId, itemId: summaryId, tokensBefore: 900, tokensAfter: 120,
    firstKeptItemId: answerId,
  });
  await meta({ type: "checkpoint", turnId, itemId: toolCallId, cwd: "/srv/zebra", tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", reason: "tool" });
  await meta({ type: "objective.opened", objectiveId, text: "tidy the zebra project", sliceLimit: 20 });
  await meta({
    type: "objective.updated", objectiveId, status: "waiting_event", slices: 2, reason: null,
    listener: { source: "github", match: { action: "opened" } },
  });
  await meta({
    type: "conversation.updated", title: `${title}, renamed`, titleSource: "owner", archived: true,
    protected: true, model: "offline-2", effort: "low", cwd: "/srv/other",
  });
  return { conversationId, rootSessionId, subagentSessionId, metadata, sessions };
}
