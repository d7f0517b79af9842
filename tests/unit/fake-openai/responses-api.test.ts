import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, streamText, tool, type ModelMessage } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { collectFullStream, partTypes, textOf } from "./collect-stream";

describe("fake OpenAI server: Responses API through @ai-sdk/openai", () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const model = () => createOpenAI({ baseURL: server.url, apiKey: "x" }).responses("o4-mini");

  it("streams reasoning, then text, and reports usage with reasoning tokens", async () => {
    server.enqueue({
      type: "text",
      text: "The answer is 4",
      reasoning: "Two plus two makes four",
      usage: { promptTokens: 120, completionTokens: 30, reasoningTokens: 25 },
    });

    const result = streamText({ model: model(), prompt: "2+2?", maxRetries: 0 });
    const { parts, thrown } = await collectFullStream(result.fullStream);

    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe("The answer is 4");
    expect(await result.reasoningText).toBe("Two plus two makes four");
    const types = partTypes(parts);
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-start"));
    expect(await result.totalUsage).toMatchObject({
      inputTokens: 120,
      outputTokens: 30,
      outputTokenDetails: { textTokens: 5, reasoningTokens: 25 },
    });
    expect(server.requests[0].path).toBe("/v1/responses");
    expect(server.requests[0].headers.authorization).toBe("Bearer x");
  });

  it("records earlier reasoning items sent back in the next request's input", async () => {
    server.enqueue({ type: "text", text: "first answer", reasoning: "first thoughts" });
    const first = streamText({ model: model(), prompt: "question one", maxRetries: 0 });
    const firstResponse = await first.response;

    const messages: ModelMessage[] = [
      { role: "user", content: "question one" },
      ...firstResponse.messages,
      { role: "user", content: "question two" },
    ];
    await streamText({ model: model(), messages, maxRetries: 0 }).consumeStream();

    const input: unknown[] = server.requests[1].body.input;
    // With the default store: true the provider refers to the stored reasoning item by id.
    expect(input).toContainEqual(expect.objectContaining({ type: "item_reference", id: expect.stringMatching(/^rs_/) }));
  });

  it("returns encrypted reasoning when asked, and gets it back with store: false", async () => {
    server.enqueue({ type: "text", text: "first answer", reasoning: "first thoughts" });
    const providerOptions = { openai: { store: false, include: ["reasoning.encrypted_content"] } };
    const first = streamText({ model: model(), prompt: "question one", maxRetries: 0, providerOptions });
    const firstResponse = await first.response;

    await streamText({
      model: model(),
      messages: [{ role: "user", content: "question one" }, ...firstResponse.messages, { role: "user", content: "two" }],
      maxRetries: 0,
      providerOptions,
    }).consumeStream();

    const input: unknown[] = server.requests[1].body.input;
    expect(input).toContainEqual(
      expect.objectContaining({
        type: "reasoning",
        encrypted_content: expect.stringMatching(/^fake-encrypted-rs_/),
        summary: [{ type: "summary_text", text: "first thoughts" }],
      }),
    );
  });

  it("reports the reasoning context the step claims to have applied", async () => {
    server.enqueue({ type: "text", text: "done", reasoning: "hmm", reasoningContext: "current_turn" });

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0 });

    expect((await result.providerMetadata)?.openai?.reasoningContext).toBe("current_turn");
  });

  it("delivers a function call with its parsed input", async () => {
    server.enqueue({ type: "tool_call", name: "search", arguments: { query: "atrium" }, id: "call_search" });
    const tools = { search: tool({ inputSchema: z.object({ query: z.string() }) }) };

    const result = streamText({ model: model(), prompt: "look it up", tools, maxRetries: 0 });
    const { parts } = await collectFullStream(result.fullStream);

    const toolCall = parts.find((part) => part.type === "tool-call");
    expect(toolCall).toMatchObject({ toolCallId: "call_search", toolName: "search", input: { query: "atrium" } });
    expect(await result.finishReason).toBe("tool-calls");
  });

  it("surfaces a dropped stream the same way as chat completions: the iteration throws", async () => {
    server.enqueue({ type: "drop", text: "alpha beta gamma", afterChunks: 1 });

    const { parts, thrown } = await collectFullStream(
      streamText({ model: model(), prompt: "hi", maxRetries: 0 }).fullStream,
    );

    expect(textOf(parts)).toBe("alpha");
    expect(APICallError.isInstance(thrown) && thrown.isRetryable).toBe(true);
  });

  it("surfaces an HTTP error as an error part with the provider's message", async () => {
    server.enqueue({ type: "error", status: 429, message: "Slow down", retryAfterSeconds: 2 });

    const { parts, thrown } = await collectFullStream(
      streamText({ model: model(), prompt: "hi", maxRetries: 0, onError: () => {} }).fullStream,
    );

    expect(thrown).toBeUndefined();
    const errorPart = parts.find((part) => part.type === "error");
    const error = errorPart?.type === "error" ? errorPart.error : undefined;
    expect(APICallError.isInstance(error) && [error.statusCode, error.message, error.responseHeaders?.["retry-after"]])
      .toEqual([429, "Slow down", "2"]);
  });
});
