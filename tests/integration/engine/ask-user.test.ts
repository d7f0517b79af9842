import { afterEach, describe, expect, it } from "vitest";
import type { Question } from "@/lib/events/entities";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

const ASK_TURN = '[[tool:ask_user {"question":"Pick","choices":["a","b"]}]]';

async function parkOnQuestion(): Promise<{ conversationId: string; turnId: string; question: Question }> {
  const created = await harness.runtime.createConversation({ text: ASK_TURN });
  const conversationId = created.conversation.id;
  const asked = await harness.waitForEvent(conversationId, "question.asked");
  await harness.waitForEvent(conversationId, "turn.updated", (event) => event.turn.status === "waiting_user");
  return { conversationId, turnId: created.turn.id, question: asked.question };
}

async function expectParked(conversationId: string, turnId: string, question: Question): Promise<void> {
  const { runtime } = harness;
  expect(runtime.getTurn(turnId).status).toBe("waiting_user");
  expect(runtime.getConversation(conversationId).status).toBe("waiting");
  expect((await runtime.listQuestions(conversationId, "pending")).map((pending) => pending.id)).toEqual([question.id]);
  expect(harness.items(conversationId).find((item) => item.kind === "tool_call")).toMatchObject({
    id: question.itemId,
    toolName: "ask_user",
    status: "waiting",
  });
}

async function answerAndExpectCompletion(conversationId: string, turnId: string, question: Question): Promise<void> {
  const answered = await harness.runtime.answerQuestion(question.id, "b");
  expect(answered).toMatchObject({ id: question.id, status: "answered", answer: "b" });
  const turn = await harness.turnEnded(conversationId, turnId);
  expect(turn.status).toBe("completed");
  const items = harness.items(conversationId);
  expect(items.find((item) => item.kind === "tool_call")).toMatchObject({ status: "completed", output: "b" });
  expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "Tool ask_user returned: b" });
  expect((await harness.runtime.listQuestions(conversationId, "pending"))).toEqual([]);
  expect(harness.runtime.getConversation(conversationId).status).toBe("idle");
}

describe("ask_user", () => {
  it("parks the turn until the owner answers; the answer is the tool result and the turn completes", async () => {
    harness = await startHarness();
    const { conversationId, turnId, question } = await parkOnQuestion();
    expect(question).toMatchObject({ question: "Pick", choices: ["a", "b"], status: "pending", answer: null, turnId });
    await expectParked(conversationId, turnId, question);

    await answerAndExpectCompletion(conversationId, turnId, question);
  });

  it("stays parked across a restart and completes when answered afterwards", async () => {
    harness = await startHarness();
    const { conversationId, turnId, question } = await parkOnQuestion();

    await harness.restart();
    await expectParked(conversationId, turnId, question);

    await answerAndExpectCompletion(conversationId, turnId, question);
  });

  it("answers a repeated identical answer the same, and refuses a different second answer", async () => {
    harness = await startHarness();
    const { conversationId, turnId, question } = await parkOnQuestion();
    await answerAndExpectCompletion(conversationId, turnId, question);

    expect(await harness.runtime.answerQuestion(question.id, "b")).toMatchObject({ status: "answered", answer: "b" });
    await expect(harness.runtime.answerQuestion(question.id, "a")).rejects.toMatchObject({ code: "not_idle" });
  });

  it("an answer with a requestKey answers its retry as the first time, across a restart; another answer under that key is idempotency_conflict", async () => {
    harness = await startHarness();
    const { conversationId, turnId, question } = await parkOnQuestion();
    expect(await harness.runtime.answerQuestion(question.id, "b", "answer-1")).toMatchObject({ status: "answered", answer: "b" });
    expect((await harness.turnEnded(conversationId, turnId)).status).toBe("completed");
    expect(await harness.runtime.answerQuestion(question.id, "b", "answer-1")).toMatchObject({ status: "answered", answer: "b" });
    await expect(harness.runtime.answerQuestion(question.id, "a", "answer-1")).rejects.toMatchObject({ code: "idempotency_conflict" });
    await harness.restart();
    await expect(harness.runtime.answerQuestion(question.id, "a", "answer-1")).rejects.toMatchObject({ code: "idempotency_conflict" });
  });

  it("a call whose input its schema refuses fails with the schema's words and asks nothing", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: '[[tool:ask_user {"choices":["a"]}]]' });
    const id = created.conversation.id;
    expect((await harness.turnEnded(id, created.turn.id)).status).toBe("completed");
    const call = harness.items(id).find((item) => item.kind === "tool_call")!;
    expect(call.status).toBe("failed");
    expect(call.output).toMatch(/^Invalid input for ask_user: question: /);
    expect((await harness.runtime.listQuestions(id))).toEqual([]);
  });

  it("an interrupt while parked marks the call interrupted and leaves no question pending", async () => {
    harness = await startHarness();
    const { conversationId, turnId, question } = await parkOnQuestion();

    await harness.runtime.interrupt(conversationId);
    expect((await harness.turnEnded(conversationId, turnId)).status).toBe("interrupted");
    expect(harness.items(conversationId).find((item) => item.kind === "tool_call")?.status).toBe("interrupted");
    await expect(harness.runtime.answerQuestion(question.id, "a")).rejects.toMatchObject({ code: "not_idle" });
    // A question nobody can answer any more must not be offered as pending.
    expect((await harness.runtime.listQuestions(conversationId, "pending"))).toEqual([]);
  });
});
