import { afterEach, describe, expect, it } from "vitest";
import type { ConversationEvent, Delivered } from "@/lib/events/events";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

/** A client of runtime.subscribe: what it received, in order, until it detaches. */
class Client {
  readonly received: Array<Delivered<ConversationEvent>> = [];
  private readonly detach: () => void;

  constructor(conversationId: string, lastEventId?: number) {
    this.detach = harness.runtime.subscribe(conversationId, { lastEventId }, (delivered) => this.received.push(delivered));
  }

  close(): void {
    this.detach();
  }

  get lastId(): number {
    return this.received.at(-1)!.id;
  }

  /** The answer's text as this client can rebuild it: snapshot text, then every text delta for the item. */
  textOf(itemId: string, initial = ""): string {
    let text = initial;
    for (const { event } of this.received) {
      if (event.type === "snapshot") text = event.items.find((item) => item.id === itemId)?.text ?? text;
      if (event.type === "item.delta" && event.itemId === itemId && event.field === "text") text += event.delta;
    }
    return text;
  }
}

async function answerStreaming(text: string, afterDelta: string) {
  const created = await harness.runtime.createConversation({ text });
  const conversationId = created.conversation.id;
  const delta = await harness.waitForEvent(conversationId, "item.delta", (event) => event.delta === afterDelta);
  return { conversationId, turnId: created.turn.id, answerId: delta.itemId };
}

function finalText(conversationId: string, itemId: string): string {
  return harness.items(conversationId).find((item) => item.id === itemId)?.text ?? "";
}

function expectConsecutive(received: Array<Delivered<ConversationEvent>>): void {
  const ids = received.map((delivered) => delivered.id);
  expect(ids).toEqual(ids.map((_, index) => ids[0] + index));
}

describe("live events through runtime.subscribe", () => {
  it("gives a client joining mid-turn a snapshot with the partial text, then deltas that complete it exactly", async () => {
    harness = await startHarness();
    const { conversationId, turnId, answerId } = await answerStreaming("join [[delay:10]] [[stream:30]]", " w3");
    const queued = await harness.runtime.sendMessage(conversationId, { text: "next one", mode: "queue" });

    const client = new Client(conversationId);
    const [first] = client.received;
    expect(first.event.type).toBe("snapshot");
    const snapshot = first.event as Extract<ConversationEvent, { type: "snapshot" }>;
    expect(snapshot.turns.map((turn) => [turn.id, turn.status])).toEqual([[turnId, "running"]]);
    const partial = snapshot.items.find((item) => item.id === answerId);
    expect(partial?.status).toBe("streaming");
    expect(partial?.text).toMatch(/^You said: join w1 w2 w3/);
    expect(snapshot.items.map((item) => item.kind)).toEqual(["user_message", "assistant_message"]);
    expect(snapshot.waiting).toMatchObject([{ id: queued.message.id, text: "next one", mode: "queue" }]);

    await harness.settledTurns(conversationId, 2);
    client.close();
    const live = client.received.slice(1);
    expect(live[0].id).toBe(first.id + 1);
    expectConsecutive(live);
    expect(client.textOf(answerId)).toBe(finalText(conversationId, answerId));
    expect(finalText(conversationId, answerId)).toBe(`You said: join ${Array.from({ length: 30 }, (_, index) => `w${index + 1}`).join(" ")}`);
  });

  it("gives a client reconnecting with Last-Event-ID only the missed events, rebuilding exactly the final text", async () => {
    harness = await startHarness();
    const { conversationId, turnId, answerId } = await answerStreaming("resume [[delay:10]] [[stream:30]]", " w2");

    const before = new Client(conversationId);
    await harness.nextEvent(conversationId, "item.delta", (event) => event.delta === " w8");
    before.close();
    const textBefore = before.textOf(answerId);
    expect(textBefore).toMatch(/w8$/);

    // Missed while away.
    await harness.nextEvent(conversationId, "item.delta", (event) => event.delta === " w15");
    const after = new Client(conversationId, before.lastId);
    expect(after.received[0].event.type).not.toBe("snapshot");
    expect(after.received[0].id).toBe(before.lastId + 1);

    await harness.turnEnded(conversationId, turnId);
    after.close();
    expect(after.received.some(({ event }) => event.type === "snapshot")).toBe(false);
    expectConsecutive([...before.received.slice(1), ...after.received]);
    expect(after.textOf(answerId, textBefore)).toBe(finalText(conversationId, answerId));
    expect(after.received.at(-1)?.event).toMatchObject({ type: "turn.ended", turn: { id: turnId, status: "completed" } });
  });

  it("answers an unknown Last-Event-ID, or one older than the events still held, with a fresh snapshot", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "many [[stream:1100]]" });
    const conversationId = created.conversation.id;
    await harness.turnEnded(conversationId, created.turn.id);
    const ids = harness.log.filter(({ event }) => event.conversationId === conversationId).map(({ id }) => id);
    expect(ids.length).toBeGreaterThan(1100);
    const lastId = ids.at(-1)!;

    for (const lastEventId of [1, lastId + 50, ids[0]]) {
      const client = new Client(conversationId, lastEventId);
      client.close();
      expect(client.received.map(({ event }) => event.type)).toEqual(["snapshot"]);
      expect(client.received[0].id).toBe(lastId);
    }

    // The last 1,000 events are still held: a client 1,000 events behind gets exactly those.
    const behind = new Client(conversationId, lastId - 1000);
    behind.close();
    expect(behind.received).toHaveLength(1000);
    expect(behind.received[0].id).toBe(lastId - 999);
    expect(behind.received.at(-1)?.id).toBe(lastId);

    const current = new Client(conversationId, lastId);
    current.close();
    expect(current.received).toEqual([]);
  });

  it("answers a Last-Event-ID from before a restart with a fresh snapshot", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "before the restart" });
    const conversationId = created.conversation.id;
    await harness.turnEnded(conversationId, created.turn.id);
    const beforeRestart = new Client(conversationId);
    beforeRestart.close();

    await harness.restart();
    const sent = await harness.runtime.sendMessage(conversationId, { text: "after the restart", mode: "auto" });
    await harness.turnEnded(conversationId, sent.turn!.id);

    const client = new Client(conversationId, beforeRestart.lastId);
    client.close();
    expect(client.received.map(({ event }) => event.type)).toEqual(["snapshot"]);
    expect(client.received[0].id).toBeGreaterThan(beforeRestart.lastId);
  });
});
