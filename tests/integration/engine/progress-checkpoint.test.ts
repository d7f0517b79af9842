import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

let harness: Harness;
afterEach(async () => harness?.close());

describe("progress checkpoints of a streaming answer", () => {
  it("write the partial text to the session file within about 2 s, so a crash loses at most that much", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "slow [[delay:20]] [[stream:400]]" });
    const conversationId = created.conversation.id;
    const sessionId = created.conversation.rootSessionId;
    const answerId = (await harness.waitForEvent(conversationId, "item.delta")).itemId;

    const progressTexts = () =>
      runtime.store
        .readSession(conversationId, sessionId)
        .records.flatMap(({ record }) => (record.type === "item.progress" && record.itemId === answerId ? [record.text] : []));
    // The interval is 2 s; the deadline leaves room for a loaded machine.
    await waitUntil(() => progressTexts().some((text) => text.length > 0), "an item.progress record of the answer", 4_000);

    const [checkpoint] = progressTexts();
    const current = harness.items(conversationId).find((item) => item.id === answerId)?.text ?? "";
    expect(current.startsWith(checkpoint)).toBe(true);
    expect(checkpoint).toMatch(/^You said: slow w1/);
    // Not written on every token: one checkpoint so far, though dozens of deltas have streamed.
    expect(progressTexts()).toHaveLength(1);
    expect(harness.events(conversationId, "item.delta").length).toBeGreaterThan(20);

    await runtime.interrupt(conversationId);
    await harness.turnEnded(conversationId, created.turn.id);
  });
});
