import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("queued messages", () => {
  it("start one turn each, in the order they were sent, after the running turn; auto while running queues", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "running [[delay:20]] [[stream:8]]" });
    const conversationId = created.conversation.id;

    const second = await runtime.sendMessage(conversationId, { text: "second", mode: "queue" });
    const third = await runtime.sendMessage(conversationId, { text: "third", mode: "auto" });
    expect(second.message).toMatchObject({ status: "queued", mode: "queue" });
    expect(second.turn).toBeNull();
    expect(third.message).toMatchObject({ status: "queued", mode: "auto" });
    expect(third.turn).toBeNull();
    expect(runtime.listWaiting(conversationId).map((waiting) => [waiting.id, waiting.mode, waiting.text])).toEqual([
      [second.message.id, "queue", "second"],
      [third.message.id, "queue", "third"],
    ]);

    const turns = await harness.settledTurns(conversationId, 3);
    expect(turns).toHaveLength(3);
    expect(turns.map((turn) => turn.status)).toEqual(["completed", "completed", "completed"]);
    expect(turns.map((turn) => turn.inputMessageIds)).toEqual([
      created.turn.inputMessageIds,
      [second.message.id],
      [third.message.id],
    ]);

    // Each queued turn started only after the one before it had ended.
    const order = harness.log
      .map(({ event }) => event)
      .filter((event) => event.type === "turn.started" || event.type === "turn.ended")
      .map((event) => `${event.type === "turn.started" ? "start" : "end"} ${turns.findIndex((turn) => turn.id === event.turn.id)}`);
    expect(order).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);

    const answers = harness.items(conversationId).filter((item) => item.kind === "assistant_message");
    expect(answers.map((item) => item.text)).toEqual([
      "You said: running w1 w2 w3 w4 w5 w6 w7 w8",
      "You said: second",
      "You said: third",
    ]);
    expect(runtime.listWaiting(conversationId)).toEqual([]);
    expect(runtime.getConversation(conversationId).status).toBe("idle");
  });

  it("starts a turn at once when sent with auto to an idle conversation", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "hello" });
    await harness.turnEnded(created.conversation.id, created.turn.id);

    const sent = await runtime.sendMessage(created.conversation.id, { text: "again", mode: "auto" });
    expect(sent.message.status).toBe("started");
    expect(sent.turn).toMatchObject({ status: "running", inputMessageIds: [sent.message.id] });
    expect((await harness.turnEnded(created.conversation.id, sent.turn!.id)).status).toBe("completed");
  });
});
