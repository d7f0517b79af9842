import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { FAST_RETRY, fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
let server: FakeOpenAIServer;
afterEach(async () => {
  await harness?.close();
  await server?.close();
});

async function start(config: Record<string, unknown> = {}): Promise<void> {
  server = await startFakeOpenAIServer();
  harness = await startHarness({ ...fakeModelConfig(server.url), ...config });
}

async function runTurn(text = "hi") {
  const created = await harness.runtime.createConversation({ text });
  const conversationId = created.conversation.id;
  const turn = await harness.turnEnded(conversationId, created.turn.id);
  return {
    conversationId,
    turn,
    items: harness.items(conversationId),
    retries: harness.events(conversationId, "turn.retrying"),
  };
}

describe("model call retries against an OpenAI-compatible provider", () => {
  it("retries a stream dropped mid-response: the partial attempt is kept as failed and not sent again", async () => {
    await start();
    server.enqueue({ type: "drop", text: "partial words that never finish", afterChunks: 2 }, { type: "text", text: "the full answer" });

    const { turn, items, retries } = await runTurn();

    expect(turn.status).toBe("completed");
    expect(items.map((item) => [item.kind, item.status, item.text])).toEqual([
      ["user_message", "completed", "hi"],
      ["assistant_message", "failed", "partial words"],
      ["assistant_message", "completed", "the full answer"],
    ]);
    expect(retries.map((event) => event.attempt)).toEqual([1]);
    expect(retries[0].turnId).toBe(turn.id);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1].body.messages)).not.toContain("partial words");
  });

  it("honours Retry-After on a 429, then succeeds", async () => {
    // The cap is 10 × maxDelayMs: 1 s fits under 10 × 200 ms.
    await start({ retry: { ...FAST_RETRY, maxDelayMs: 200 } });
    server.enqueue({ type: "error", status: 429, message: "slow down", retryAfterSeconds: 1 }, { type: "text", text: "after the wait" });

    const { turn, items, retries } = await runTurn();

    expect(turn.status).toBe("completed");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 1000, error: { code: "provider_error" } });
    expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "after the wait" });
    expect(server.requests).toHaveLength(2);
  });

  it("caps a Retry-After of an hour at 10 × retry.maxDelayMs", async () => {
    await start();
    server.enqueue({ type: "error", status: 429, message: "come back tomorrow", retryAfterSeconds: 3600 }, { type: "text", text: "soon after all" });

    const { turn, retries } = await runTurn();

    expect(turn.status).toBe("completed");
    expect(retries.map((event) => event.delayMs)).toEqual([FAST_RETRY.maxDelayMs * 10]);
  });

  it("retries 503 three times with growing waits, then succeeds", async () => {
    await start();
    server.enqueue(
      { type: "error", status: 503, message: "overloaded" },
      { type: "error", status: 503, message: "overloaded" },
      { type: "error", status: 503, message: "overloaded" },
      { type: "text", text: "finally" },
    );

    const { turn, items, retries } = await runTurn();

    expect(turn).toMatchObject({ status: "completed", error: null });
    expect(retries.map((event) => [event.attempt, event.delayMs])).toEqual([
      [1, FAST_RETRY.baseDelayMs],
      [2, FAST_RETRY.baseDelayMs * 2],
      [3, Math.min(FAST_RETRY.baseDelayMs * 4, FAST_RETRY.maxDelayMs)],
    ]);
    expect(retries[0].error.message).toContain("overloaded");
    expect(items.map((item) => item.kind)).toEqual(["user_message", "assistant_message"]);
    expect(items[1].text).toBe("finally");
    expect(server.requests).toHaveLength(4);
  });

  it.each([400, 401, 404])("fails the turn at once on a %i with the provider's message", async (status) => {
    await start();
    server.enqueue({ type: "error", status, message: "context too long for this model" });

    const { conversationId, turn, retries } = await runTurn();

    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("provider_error");
    expect(turn.error?.message).toContain("context too long for this model");
    expect(retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(harness.runtime.getConversation(conversationId).status).toBe("idle");
  });

  it("fails the turn once retry.maxRetries retries are used up", async () => {
    await start({ retry: { ...FAST_RETRY, maxRetries: 2 } });
    server.setDefault({ type: "error", status: 503, message: "still down" });

    const { turn, retries } = await runTurn();

    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("provider_error");
    expect(turn.error?.message).toContain("still down");
    expect(retries.map((event) => event.attempt)).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
  });

  it("ends the turn at once when interrupted during a retry wait", async () => {
    await start({ retry: { ...FAST_RETRY, maxDelayMs: 60_000 } });
    server.enqueue({ type: "error", status: 503, message: "come back later", retryAfterSeconds: 600 });
    const created = await harness.runtime.createConversation({ text: "hi" });
    const conversationId = created.conversation.id;
    const retrying = await harness.waitForEvent(conversationId, "turn.retrying");
    // 10 × 60 s would allow 600 s; the absolute ceiling is 5 minutes.
    expect(retrying.delayMs).toBe(300_000);

    await harness.runtime.interrupt(conversationId);
    const turn = await harness.turnEnded(conversationId, created.turn.id, 2_000);
    expect(turn).toMatchObject({ status: "interrupted", error: null });
    expect(server.requests).toHaveLength(1);
  });
});
