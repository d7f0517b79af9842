import { afterEach, describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

const LONG_TURN = "long [[delay:20]] [[stream:200]]";

describe("the waiting list", () => {
  it("edits the text of a waiting message, which then runs with the new text", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "running [[delay:20]] [[stream:5]]" });
    const conversationId = created.conversation.id;
    const queued = await runtime.sendMessage(conversationId, { text: "original text", mode: "queue" });

    const edited = await runtime.updateWaiting(conversationId, queued.message.id, { text: "edited text" });
    expect(edited).toMatchObject({ id: queued.message.id, text: "edited text", mode: "queue" });
    expect(runtime.listWaiting(conversationId)).toMatchObject([{ id: queued.message.id, text: "edited text" }]);
    const published = harness.events(conversationId, "queue.updated").at(-1);
    expect(published?.waiting).toMatchObject([{ id: queued.message.id, text: "edited text" }]);

    const [, second] = await harness.settledTurns(conversationId, 2);
    expect(second.inputMessageIds).toEqual([queued.message.id]);
    const items = harness.items(conversationId);
    expect(items.find((item) => item.id === queued.message.id)?.text).toBe("edited text");
    expect(items.at(-1)).toMatchObject({ kind: "assistant_message", turnId: second.id, text: "You said: edited text" });
  });

  it("withdraws a waiting message, which never runs", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "running [[delay:20]] [[stream:5]]" });
    const conversationId = created.conversation.id;
    const withdrawn = await runtime.sendMessage(conversationId, { text: "never mind", mode: "queue" });
    const kept = await runtime.sendMessage(conversationId, { text: "kept", mode: "queue" });

    await runtime.withdrawWaiting(conversationId, withdrawn.message.id);
    expect(runtime.listWaiting(conversationId).map((waiting) => waiting.id)).toEqual([kept.message.id]);
    await expect(runtime.withdrawWaiting(conversationId, withdrawn.message.id)).rejects.toMatchObject({ code: "not_found" });

    const turns = await harness.settledTurns(conversationId, 2);
    expect(turns.map((turn) => turn.inputMessageIds)).toEqual([created.turn.inputMessageIds, [kept.message.id]]);
    const items = harness.items(conversationId);
    expect(items.some((item) => item.id === withdrawn.message.id || item.text?.includes("never mind"))).toBe(false);
    expect(runtime.listWaiting(conversationId)).toEqual([]);
  });

  it("hands a queued message to the running turn (queue → steer): it is read before the next model call", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: '[[delay:100]] [[tool:read_file {"path":"x"}]]' });
    const conversationId = created.conversation.id;
    const queued = await runtime.sendMessage(conversationId, { text: "promoted", mode: "queue" });

    const promoted = await runtime.updateWaiting(conversationId, queued.message.id, { mode: "steer" });
    expect(promoted).toMatchObject({ id: queued.message.id, mode: "steer" });

    const [turn] = await harness.settledTurns(conversationId, 1);
    expect(runtime.listTurns(conversationId)).toHaveLength(1);
    expect(turn.status).toBe("completed");
    const items = harness.items(conversationId);
    expect(items.map((item) => item.kind)).toEqual(["user_message", "tool_call", "user_message", "assistant_message"]);
    expect(items[2]).toMatchObject({ id: queued.message.id, turnId: turn.id, text: "promoted" });
    expect(items[3]).toMatchObject({ turnId: turn.id, text: "You said: promoted" });
    expect(runtime.listWaiting(conversationId)).toEqual([]);
  });

  it("makes a waiting message jump: the running turn is interrupted and the jumper runs before older waiting messages", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: LONG_TURN });
    const conversationId = created.conversation.id;
    const older = await runtime.sendMessage(conversationId, { text: "older", mode: "queue" });
    const jumper = await runtime.sendMessage(conversationId, { text: "jumper", mode: "queue" });
    await harness.waitForEvent(conversationId, "item.delta");

    const jumped = await runtime.updateWaiting(conversationId, jumper.message.id, { mode: "jump" });
    expect(jumped).toMatchObject({ id: jumper.message.id, mode: "jump" });

    const turns = await harness.settledTurns(conversationId, 3);
    expect(turns.map((turn) => turn.status)).toEqual(["interrupted", "completed", "completed"]);
    expect(turns.map((turn) => turn.inputMessageIds)).toEqual([
      created.turn.inputMessageIds,
      [jumper.message.id],
      [older.message.id],
    ]);
    const answers = harness.items(conversationId).filter((item) => item.kind === "assistant_message");
    expect(answers.map((item) => item.status)).toEqual(["interrupted", "completed", "completed"]);
    expect(answers.slice(1).map((item) => item.text)).toEqual(["You said: jumper", "You said: older"]);
  });

  it("refuses to edit a message that is no longer waiting", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "hello" });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    const error = await runtime
      .updateWaiting(created.conversation.id, created.turn.inputMessageIds[0], { text: "too late" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AtriumError);
    expect(error).toMatchObject({ code: "not_found" });
  });
});
