import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("a jump message", () => {
  it("interrupts the running turn and is handled next, before messages already queued", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "long [[delay:20]] [[stream:200]]" });
    const conversationId = created.conversation.id;
    const queued = await runtime.sendMessage(conversationId, { text: "queued earlier", mode: "queue" });
    await harness.waitForEvent(conversationId, "item.delta", (event) => event.delta === " w1");

    const jump = await runtime.sendMessage(conversationId, { text: "urgent", mode: "jump" });
    expect(jump.message).toMatchObject({ status: "jumped", mode: "jump" });
    expect(jump.turn).toBeNull();

    const turns = await harness.settledTurns(conversationId, 3);
    expect(turns.map((turn) => turn.status)).toEqual(["interrupted", "completed", "completed"]);
    expect(turns[0].id).toBe(created.turn.id);
    expect(turns[0].error).toBeNull();
    expect(turns.slice(1).map((turn) => turn.inputMessageIds)).toEqual([[jump.message.id], [queued.message.id]]);

    const items = harness.items(conversationId);
    const firstTurn = items.filter((item) => item.turnId === created.turn.id);
    expect(firstTurn.map((item) => [item.kind, item.status])).toEqual([
      ["user_message", "completed"],
      ["assistant_message", "interrupted"],
      ["notice", "completed"],
    ]);
    expect(firstTurn[1].text).toMatch(/^You said: long w1/);
    expect(firstTurn[1].text).not.toMatch(/w200$/);
    expect(items.filter((item) => item.kind === "assistant_message").slice(1).map((item) => item.text)).toEqual([
      "You said: urgent",
      "You said: queued earlier",
    ]);
  });
});
