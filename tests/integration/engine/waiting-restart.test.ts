import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("waiting messages across a restart", () => {
  it("are kept, edits included, and start in order once the server is back", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "long [[delay:20]] [[stream:200]]" });
    const conversationId = created.conversation.id;
    const first = await harness.runtime.sendMessage(conversationId, { text: "first draft", mode: "queue" });
    const second = await harness.runtime.sendMessage(conversationId, { text: "second", mode: "queue" });
    await harness.runtime.updateWaiting(conversationId, first.message.id, { text: "first [[delay:20]] [[stream:5]]" });
    await harness.waitForEvent(conversationId, "item.delta");

    const runtime = await harness.restart();

    expect(runtime.getTurn(created.turn.id)).toMatchObject({ status: "interrupted", error: { code: "server_stopped" } });
    // The first waiting message started as soon as recovery was done; the second still waits.
    const waiting = runtime.listWaiting(conversationId);
    expect(waiting.map((entry) => [entry.id, entry.text, entry.mode])).toEqual([[second.message.id, "second", "queue"]]);

    const turns = await harness.settledTurns(conversationId, 3);
    expect(turns.map((turn) => [turn.status, turn.inputMessageIds])).toEqual([
      ["interrupted", created.turn.inputMessageIds],
      ["completed", [first.message.id]],
      ["completed", [second.message.id]],
    ]);
    const answers = runtime.listItems(conversationId, {}).items.filter((item) => item.kind === "assistant_message");
    expect(answers.slice(1).map((item) => item.text)).toEqual(["You said: first w1 w2 w3 w4 w5", "You said: second"]);
    expect(runtime.listWaiting(conversationId)).toEqual([]);
  });

  it("keeps a steer that the stopped turn never read, and runs it next", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "long [[delay:20]] [[stream:200]]" });
    const conversationId = created.conversation.id;
    const steer = await harness.runtime.sendMessage(conversationId, { text: "steered before the stop", mode: "steer" });
    expect(steer.message.status).toBe("steered");

    const runtime = await harness.restart();

    const turns = await harness.settledTurns(conversationId, 2);
    expect(turns.map((turn) => [turn.status, turn.inputMessageIds])).toEqual([
      ["interrupted", created.turn.inputMessageIds],
      ["completed", [steer.message.id]],
    ]);
    const steerItem = runtime.listItems(conversationId, {}).items.find((item) => item.id === steer.message.id);
    expect(steerItem).toMatchObject({ kind: "user_message", turnId: turns[1].id, text: "steered before the stop" });
  });
});
