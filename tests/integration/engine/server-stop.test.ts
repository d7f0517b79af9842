import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0).reverse()) await harness.close();
});

describe("stopping the runtime", () => {
  it("interrupts a running turn as server_stopped and leaves waiting messages for the next start", async () => {
    const harness = await startHarness();
    harnesses.push(harness);
    const created = await harness.runtime.createConversation({ text: "long [[delay:20]] [[stream:200]]" });
    const conversationId = created.conversation.id;
    const queued = await harness.runtime.sendMessage(conversationId, { text: "after the stop", mode: "queue" });
    await harness.waitForEvent(conversationId, "item.delta");

    const runtime = await harness.restart();

    const stopped = runtime.getTurn(created.turn.id);
    expect(stopped).toMatchObject({ status: "interrupted", error: { code: "server_stopped" } });
    const firstTurn = runtime.listItems(conversationId, {}).items.filter((item) => item.turnId === created.turn.id);
    expect(firstTurn.map((item) => [item.kind, item.status])).toEqual([
      ["user_message", "completed"],
      ["assistant_message", "interrupted"],
      ["notice", "completed"],
    ]);
    expect(firstTurn[2].text).toMatch(/server stopped/i);
    const turns = await harness.settledTurns(conversationId, 2);
    expect(turns[1]).toMatchObject({ status: "completed", inputMessageIds: [queued.message.id] });
  });

  it("starts no turn once stopping has begun, even for a message that was next in line as the last turn ended", async () => {
    const harness = await startHarness();
    harnesses.push(harness);
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "short [[delay:10]] [[stream:3]]" });
    const conversationId = created.conversation.id;
    const queued = await runtime.sendMessage(conversationId, { text: "next in line", mode: "queue" });

    // Stop at the moment the running turn ends, before the waiting message is started.
    let stopping: Promise<void> | undefined;
    const detach = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (event.type === "turn.ended" && event.turn.id === created.turn.id) stopping ??= runtime.stop();
    });
    await harness.waitForEvent(conversationId, "turn.ended", (event) => event.turn.id === created.turn.id);
    detach();
    await stopping;

    expect(runtime.actor(conversationId).hasOpenTurn()).toBe(false);
    expect(runtime.actor(conversationId).waitingList().map((waiting) => waiting.id)).toEqual([queued.message.id]);

    // The next start picks the message up, exactly once.
    const next = await startHarness({}, harness.home);
    harnesses.push(next);
    // Recovery has pumped the waiting list by the time start() returns.
    expect(next.runtime.listTurns(conversationId).map((turn) => turn.inputMessageIds)).toEqual([
      created.turn.inputMessageIds,
      [queued.message.id],
    ]);
    const turns = await next.settledTurns(conversationId, 2);
    expect(turns[1].status).toBe("completed");
    expect(next.items(conversationId).filter((item) => item.text === "next in line")).toHaveLength(1);
  });
});
