import { describe, expect, it } from "vitest";
import { ConversationFold } from "@/lib/store/conversation-fold";
import type { MetadataRecord } from "@/lib/store/records";

const CONVERSATION = "01M8VS00000000000000000000";
const SESSION = "01M8VS00000000000000000001";
const TURN = "01M8VS00000000000000000002";
const MESSAGE = "01M8VS00000000000000000003";
const APPROVAL = "01M8VS00000000000000000004";
const ITEM = "01M8VS00000000000000000005";

let seq = 0;
function record(body: Record<string, unknown>): MetadataRecord {
  seq += 1;
  return { v: 1, seq, at: `2026-12-02T10:00:${String(seq).padStart(2, "0")}.000Z`, ...body } as MetadataRecord;
}

function started(verifies: boolean): ConversationFold {
  const fold = new ConversationFold(CONVERSATION, () => verifies);
  fold.applyMetadata(
    record({ type: "conversation.created", conversationId: CONVERSATION, title: "t", titleSource: "auto", agent: "a", model: "m", effort: null, cwd: "/", executor: "local", rootSessionId: SESSION }),
  );
  fold.applyMetadata(record({ type: "session.created", sessionId: SESSION, agent: "a", model: "m" }));
  return fold;
}

describe("ConversationFold", () => {
  it("keeps the turn a message switched to steer joins, and forgets it when switched back (queue.updated turnId)", () => {
    const fold = started(true);
    fold.applyMetadata(record({ type: "queue.added", messageId: MESSAGE, sessionId: SESSION, text: "x", mode: "queue", origin: "owner" }));
    expect(fold.waiting.get(MESSAGE)?.turnId).toBeUndefined();
    fold.applyMetadata(record({ type: "queue.updated", messageId: MESSAGE, mode: "steer", turnId: TURN }));
    expect(fold.waiting.get(MESSAGE)).toMatchObject({ mode: "steer", turnId: TURN });
    fold.applyMetadata(record({ type: "queue.updated", messageId: MESSAGE, mode: "queue", turnId: null }));
    expect(fold.waiting.get(MESSAGE)?.mode).toBe("queue");
    expect(fold.waiting.get(MESSAGE)?.turnId).toBeUndefined();
    fold.applyMetadata(record({ type: "queue.removed", messageId: MESSAGE, reason: "withdrawn" }));
    expect(fold.waiting.size).toBe(0);
  });

  it("leaves an approve whose proof does not verify pending, and takes a deny", () => {
    for (const verifies of [false, true]) {
      const fold = started(verifies);
      fold.applyMetadata(record({ type: "approval.requested", approvalId: APPROVAL, sessionId: SESSION, turnId: TURN, itemId: ITEM, toolName: "shell", input: { command: "ls" } }));
      fold.applyMetadata(record({ type: "approval.decided", approvalId: APPROVAL, decision: "approve", proof: "p" }));
      expect(fold.approvals.get(APPROVAL)?.status).toBe(verifies ? "approved" : "pending");
      if (!verifies) {
        fold.applyMetadata(record({ type: "approval.decided", approvalId: APPROVAL, decision: "deny" }));
        expect(fold.approvals.get(APPROVAL)).toMatchObject({ status: "denied", decidedAt: expect.any(String) });
      }
    }
  });
});
