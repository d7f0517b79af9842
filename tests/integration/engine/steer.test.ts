import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("a steered message", () => {
  it("joins the running turn before its next model call and is answered there", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: '[[delay:100]] [[tool:read_file {"path":"x"}]]' });
    const conversationId = created.conversation.id;

    const steered = await runtime.sendMessage(conversationId, { text: "also check y", mode: "steer" });
    expect(steered.message.status).toBe("steered");
    expect(steered.turn?.id).toBe(created.turn.id);

    const turn = await harness.turnEnded(conversationId, created.turn.id);
    expect(turn.status).toBe("completed");
    expect(runtime.listTurns(conversationId)).toHaveLength(1);

    const items = harness.items(conversationId);
    expect(items.map((item) => [item.kind, item.turnId])).toEqual([
      ["user_message", created.turn.id],
      ["tool_call", created.turn.id],
      ["user_message", created.turn.id],
      ["assistant_message", created.turn.id],
    ]);
    // The tool call the model was already making was not cut short: the steer waited for it.
    expect(items[1]).toMatchObject({ toolName: "read_file" });
    expect(items[1].status).not.toBe("interrupted");
    expect(items[2]).toMatchObject({ id: steered.message.id, text: "also check y", origin: "owner" });
    expect(items[3]).toMatchObject({ status: "completed", text: "You said: also check y" });
    expect(runtime.listWaiting(conversationId)).toEqual([]);
  });

  it("becomes the next turn when the running turn ends before reading it", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "first [[delay:20]] [[stream:10]]" });
    const conversationId = created.conversation.id;

    const steered = await runtime.sendMessage(conversationId, { text: "late steer", mode: "steer" });
    expect(steered.message.status).toBe("steered");
    expect(runtime.listWaiting(conversationId)).toMatchObject([{ id: steered.message.id, mode: "steer", text: "late steer" }]);

    const [first, second] = await harness.settledTurns(conversationId, 2);
    expect(runtime.listTurns(conversationId)).toHaveLength(2);
    expect(first.id).toBe(created.turn.id);
    expect(first.status).toBe("completed");
    expect(second.status).toBe("completed");
    expect(second.inputMessageIds).toEqual([steered.message.id]);

    const started = harness.events(conversationId, "turn.started").find((event) => event.turn.id === second.id);
    expect(started?.turn.inputMessageIds).toEqual([steered.message.id]);

    const items = harness.items(conversationId);
    const steerItem = items.find((item) => item.id === steered.message.id);
    expect(steerItem).toMatchObject({ kind: "user_message", turnId: second.id, text: "late steer" });
    const answers = items.filter((item) => item.kind === "assistant_message");
    expect(answers.map((item) => [item.turnId, item.text])).toEqual([
      [first.id, "You said: first w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"],
      [second.id, "You said: late steer"],
    ]);
    expect(runtime.listWaiting(conversationId)).toEqual([]);
  });
});
