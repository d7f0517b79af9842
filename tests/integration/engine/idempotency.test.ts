import { afterEach, describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

const COPIES = 20;
const ALL_CONVERSATIONS = { archived: "all", offset: 0, limit: 100 } as const;

async function idleConversation(): Promise<string> {
  const created = await harness.runtime.createConversation({ text: "hello" });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return created.conversation.id;
}

describe("requestKey", () => {
  it(`makes ${COPIES} concurrent sends with one key create exactly one message and one turn, answered alike`, async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const conversationId = await idleConversation();

    const answers = await Promise.all(
      Array.from({ length: COPIES }, () =>
        runtime.sendMessage(conversationId, { text: "only once", mode: "auto", requestKey: "send-1" }),
      ),
    );

    const [first] = answers;
    expect(first.message.status).toBe("started");
    expect(first.turn?.inputMessageIds).toEqual([first.message.id]);
    for (const answer of answers) expect(answer).toEqual(first);
    await harness.settledTurns(conversationId, 2);
    expect(runtime.listTurns(conversationId)).toHaveLength(2);
    const messages = harness.items(conversationId).filter((item) => item.kind === "user_message" && item.text === "only once");
    expect(messages.map((item) => item.id)).toEqual([first.message.id]);

    // Later, and after a restart (the key is kept with the record it created), the answer is the same.
    await harness.restart();
    const again = await harness.runtime.sendMessage(conversationId, { text: "only once", mode: "auto", requestKey: "send-1" });
    expect(again.message).toEqual(first.message);
    expect(again.turn?.id).toBe(first.turn?.id);
    expect(harness.runtime.listTurns(conversationId)).toHaveLength(2);
  });

  it(`makes ${COPIES} concurrent sends with one key while a turn runs queue exactly one waiting message`, async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "busy [[delay:20]] [[stream:10]]" });
    const conversationId = created.conversation.id;

    const answers = await Promise.all(
      Array.from({ length: COPIES }, () =>
        runtime.sendMessage(conversationId, { text: "queued once", mode: "auto", requestKey: "queue-1" }),
      ),
    );

    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toMatchObject({ message: { status: "queued" }, turn: null });
    expect(runtime.listWaiting(conversationId).map((waiting) => waiting.id)).toEqual([answers[0].message.id]);
    const turns = await harness.settledTurns(conversationId, 2);
    expect(turns.map((turn) => turn.inputMessageIds)).toEqual([created.turn.inputMessageIds, [answers[0].message.id]]);
  });

  it("refuses the same key with a different body with idempotency_conflict, and creates nothing", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const conversationId = await idleConversation();
    const first = await runtime.sendMessage(conversationId, { text: "original", mode: "auto", requestKey: "send-2" });

    const conflict = await runtime
      .sendMessage(conversationId, { text: "different", mode: "auto", requestKey: "send-2" })
      .catch((caught: unknown) => caught);
    expect(conflict).toBeInstanceOf(AtriumError);
    expect(conflict).toMatchObject({ code: "idempotency_conflict" });

    // Also while the first request is still in flight.
    const racing = await Promise.allSettled([
      runtime.sendMessage(conversationId, { text: "a", mode: "queue", requestKey: "send-3" }),
      runtime.sendMessage(conversationId, { text: "b", mode: "queue", requestKey: "send-3" }),
    ]);
    expect(racing.map((result) => result.status)).toEqual(["fulfilled", "rejected"]);
    expect((racing[1] as PromiseRejectedResult).reason).toMatchObject({ code: "idempotency_conflict" });

    await harness.settledTurns(conversationId, 3);
    const texts = harness.items(conversationId).filter((item) => item.kind === "user_message").map((item) => item.text);
    expect(texts).toEqual(["hello", "original", "a"]);
    expect(first.message.status).toBe("started");
  });

  it(`makes ${COPIES} concurrent createConversation calls with one key create one conversation`, async () => {
    harness = await startHarness();
    const { runtime } = harness;

    const answers = await Promise.all(
      Array.from({ length: COPIES }, () => runtime.createConversation({ text: "new chat", requestKey: "create-1" })),
    );

    const [first] = answers;
    for (const answer of answers) {
      expect(answer.conversation.id).toBe(first.conversation.id);
      expect(answer.message.id).toBe(first.message.id);
      expect(answer.turn.id).toBe(first.turn.id);
    }
    expect((await runtime.listConversations(ALL_CONVERSATIONS)).conversations.map((conversation) => conversation.id)).toEqual([first.conversation.id]);
    await harness.settledTurns(first.conversation.id, 1);
    expect(runtime.listTurns(first.conversation.id)).toHaveLength(1);
    expect(harness.items(first.conversation.id).filter((item) => item.kind === "user_message")).toHaveLength(1);

    await expect(runtime.createConversation({ text: "another chat", requestKey: "create-1" })).rejects.toMatchObject({
      code: "idempotency_conflict",
    });
    expect((await runtime.listConversations(ALL_CONVERSATIONS)).conversations).toHaveLength(1);
  });

  it("answers a repeated steer exactly as the first time, naming the turn it joined, after that turn has ended", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: '[[delay:50]] [[tool:read_file {"path":"x"}]]' });
    const conversationId = created.conversation.id;
    const first = await runtime.sendMessage(conversationId, { text: "steer me", mode: "steer", requestKey: "steer-1" });
    expect(first).toMatchObject({ message: { status: "steered" }, turn: { id: created.turn.id } });
    await harness.settledTurns(conversationId, 1);

    const again = await runtime.sendMessage(conversationId, { text: "steer me", mode: "steer", requestKey: "steer-1" });
    expect(again.message).toEqual(first.message);
    expect(again.turn?.id).toBe(created.turn.id);
    expect(runtime.listTurns(conversationId)).toHaveLength(1);
  });
});
