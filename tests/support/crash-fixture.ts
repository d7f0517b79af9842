import fs from "node:fs";
import { Store } from "@/lib/store/store";
import type { StoredItem } from "@/lib/store/records";

export interface CrashedConversation {
  conversationId: string;
  sessionId: string;
  turnId: string;
  messageId: string;
  answerId: string;
  toolCallId: string;
  waitingIds: string[];
  approvalId: string | null;
}

export interface CrashOptions {
  /** Model id written into the conversation and turn. */
  model: string;
  cwd: string;
  /** Partial text of the streaming answer, as its last item.progress left it. */
  partialText?: string;
  /** Messages left on the waiting list, queued in this order. */
  waiting?: string[];
  /**
   * "started": the tool call had begun running (its first item.progress) when the process died.
   * "awaiting_approval": the turn was parked on a pending approval for it; no answer is streaming.
   */
  toolState?: "started" | "awaiting_approval";
  toolInput?: Record<string, unknown>;
  /** Output the started tool call had produced, as its last item.progress left it. */
  toolOutput?: string;
}

/**
 * Writes, through a Store of its own, the records a server leaves behind when it dies in the
 * middle of a turn — no turn.ended — then closes the store, as a killed process would have.
 */
export async function writeCrashedTurn(home: string, options: CrashOptions): Promise<CrashedConversation> {
  const store = new Store(home, { log: () => {} });
  const conversationId = store.newId();
  const sessionId = store.newId();
  const turnId = store.newId();
  const messageId = store.newId();
  const answerId = store.newId();
  const toolCallId = store.newId();
  const toolState = options.toolState ?? "started";
  const item = (fields: Omit<StoredItem, "sessionId" | "createdAt">): StoredItem => ({
    ...fields,
    sessionId,
    createdAt: store.now().toISOString(),
  });

  await store.appendMetadata(conversationId, {
    type: "conversation.created",
    conversationId,
    title: "crashed",
    titleSource: "auto",
    agent: "default",
    model: options.model,
    effort: null,
    cwd: options.cwd,
    executor: "local",
    rootSessionId: sessionId,
    forkedFrom: null,
  });
  await store.appendMetadata(conversationId, {
    type: "session.created",
    sessionId,
    agent: "default",
    model: options.model,
    parentSessionId: null,
    depth: 0,
  });
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: item({ id: messageId, turnId, kind: "user_message", status: "completed", text: "please do the thing", origin: "owner" }),
  });
  await store.appendMetadata(conversationId, {
    type: "turn.started",
    turnId,
    sessionId,
    model: options.model,
    effort: null,
    inputMessageIds: [messageId],
    proof: store.proofs.turnStarted(conversationId, turnId, sessionId),
  });
  if (toolState === "started") {
    await store.appendSession(conversationId, sessionId, {
      type: "item.created",
      item: item({ id: answerId, turnId, kind: "assistant_message", status: "streaming", text: "" }),
    });
    await store.appendSession(conversationId, sessionId, { type: "item.progress", itemId: answerId, text: options.partialText ?? "" });
  }
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: item({
      id: toolCallId,
      turnId,
      kind: "tool_call",
      status: "waiting",
      toolName: "shell",
      toolCallId: "call_crashed",
      input: options.toolInput ?? { command: "touch effect.marker" },
    }),
  });
  let approvalId: string | null = null;
  if (toolState === "started") {
    await store.appendSession(conversationId, sessionId, { type: "item.progress", itemId: toolCallId, text: "" });
    if (options.toolOutput) {
      await store.appendSession(conversationId, sessionId, { type: "item.progress", itemId: toolCallId, text: options.toolOutput });
    }
  } else {
    approvalId = store.newId();
    await store.appendMetadata(conversationId, {
      type: "approval.requested",
      approvalId,
      sessionId,
      turnId,
      itemId: toolCallId,
      toolName: "shell",
      input: options.toolInput ?? { command: "touch effect.marker" },
    });
  }
  const waitingIds: string[] = [];
  for (const text of options.waiting ?? []) {
    const messageId = store.newId();
    await store.appendMetadata(conversationId, { type: "queue.added", messageId, sessionId, text, mode: "queue", origin: "owner" });
    waitingIds.push(messageId);
  }
  await store.close();
  return { conversationId, sessionId, turnId, messageId, answerId, toolCallId, waitingIds, approvalId };
}

/** Removes the SQLite index, so the next start must rebuild everything from the JSONL files. */
export function loseIndex(home: string): void {
  for (const name of fs.readdirSync(home)) {
    if (name.startsWith("metadata.db")) fs.rmSync(`${home}/${name}`);
  }
}

/**
 * A finished exchange, then a queued message whose turn was being started when the process
 * died: its user_message item is on disk (carrying the new turn's id) but neither the
 * queue.removed nor the turn.started record that follow it were written.
 */
export async function writeCrashWhileStartingWaitingMessage(
  home: string,
  options: { model: string; cwd: string; text: string },
): Promise<{ conversationId: string; sessionId: string; firstTurnId: string; messageId: string; pendingTurnId: string }> {
  const store = new Store(home, { log: () => {} });
  const conversationId = store.newId();
  const sessionId = store.newId();
  const firstTurnId = store.newId();
  const firstMessageId = store.newId();
  const messageId = store.newId();
  const pendingTurnId = store.newId();
  const createdAt = () => store.now().toISOString();

  await store.appendMetadata(conversationId, {
    type: "conversation.created",
    conversationId,
    title: "crashed while starting",
    titleSource: "auto",
    agent: "default",
    model: options.model,
    effort: null,
    cwd: options.cwd,
    executor: "local",
    rootSessionId: sessionId,
    forkedFrom: null,
  });
  await store.appendMetadata(conversationId, {
    type: "session.created",
    sessionId,
    agent: "default",
    model: options.model,
    parentSessionId: null,
    depth: 0,
  });
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: { id: firstMessageId, sessionId, turnId: firstTurnId, kind: "user_message", status: "completed", text: "first", origin: "owner", createdAt: createdAt() },
  });
  await store.appendMetadata(conversationId, {
    type: "turn.started",
    turnId: firstTurnId,
    sessionId,
    model: options.model,
    effort: null,
    inputMessageIds: [firstMessageId],
    proof: store.proofs.turnStarted(conversationId, firstTurnId, sessionId),
  });
  await store.appendMetadata(conversationId, { type: "queue.added", messageId, sessionId, text: options.text, mode: "queue", origin: "owner" });
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: { id: store.newId(), sessionId, turnId: firstTurnId, kind: "assistant_message", status: "completed", text: "You said: first", createdAt: createdAt() },
  });
  await store.appendMetadata(conversationId, {
    type: "turn.ended",
    turnId: firstTurnId,
    status: "completed",
    error: null,
    usage: { inputTokens: 1, outputTokens: 3 },
  });
  await store.appendSession(conversationId, sessionId, {
    type: "item.created",
    item: { id: messageId, sessionId, turnId: pendingTurnId, kind: "user_message", status: "completed", text: options.text, origin: "owner", createdAt: createdAt() },
  });
  await store.close();
  return { conversationId, sessionId, firstTurnId, messageId, pendingTurnId };
}
