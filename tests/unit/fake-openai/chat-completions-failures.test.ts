import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, NoOutputGeneratedError, streamText } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { collectFullStream, partTypes, textOf } from "./collect-stream";

// These tests pin down how the AI SDK surfaces each failure, which the engine's retry logic relies on.
describe("fake OpenAI server: failures through @ai-sdk/openai-compatible", () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const model = () => createOpenAICompatible({ name: "fake", baseURL: server.url, includeUsage: true })("m");

  it("surfaces 429 as an error part holding a retryable APICallError with Retry-After", async () => {
    server.enqueue({ type: "error", status: 429, retryAfterSeconds: 7 });
    const reported: unknown[] = [];

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0, onError: ({ error }) => void reported.push(error) });
    const { parts, thrown } = await collectFullStream(result.fullStream);

    expect(thrown).toBeUndefined();
    const errorPart = parts.find((part) => part.type === "error");
    const error = errorPart?.type === "error" ? errorPart.error : undefined;
    expect(APICallError.isInstance(error)).toBe(true);
    if (!APICallError.isInstance(error)) return;
    expect(error.statusCode).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders?.["retry-after"]).toBe("7");
    expect(error.message).toBe("Rate limit reached (fake server)");
    expect(reported).toEqual([error]);
    // The result promises do not carry the APICallError: only the error part does.
    await expect(result.text).rejects.toBeInstanceOf(NoOutputGeneratedError);
    expect(server.requests).toHaveLength(1);
  });

  it("surfaces 400 as a non-retryable APICallError with the provider's message", async () => {
    server.enqueue({ type: "error", status: 400, message: "messages[1].content must not be empty" });

    const { parts, thrown } = await collectFullStream(
      streamText({ model: model(), prompt: "hi", maxRetries: 0, onError: () => {} }).fullStream,
    );

    expect(thrown).toBeUndefined();
    const errorPart = parts.find((part) => part.type === "error");
    const error = errorPart?.type === "error" ? errorPart.error : undefined;
    expect(APICallError.isInstance(error)).toBe(true);
    if (!APICallError.isInstance(error)) return;
    expect(error.statusCode).toBe(400);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toBe("messages[1].content must not be empty");
    expect(JSON.parse(error.responseBody ?? "")).toMatchObject({ error: { type: "invalid_request_error" } });
  });

  it("lets the SDK's own retry (when maxRetries allows it) honour Retry-After", async () => {
    server.enqueue({ type: "error", status: 503, retryAfterSeconds: 0 }, { type: "text", text: "recovered" });

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 1 });

    expect(await result.text).toBe("recovered");
    expect(server.requests).toHaveLength(2);
  });

  it("sends a custom error body verbatim", async () => {
    server.enqueue({ type: "error", status: 502, body: "<html>Bad Gateway</html>" });

    const { parts } = await collectFullStream(
      streamText({ model: model(), prompt: "hi", maxRetries: 0, onError: () => {} }).fullStream,
    );

    const errorPart = parts.find((part) => part.type === "error");
    const error = errorPart?.type === "error" ? errorPart.error : undefined;
    expect(APICallError.isInstance(error) && error.statusCode).toBe(502);
    expect(APICallError.isInstance(error) && error.responseBody).toBe("<html>Bad Gateway</html>");
  });

  it("makes a dropped stream throw from the fullStream iteration, after the partial text", async () => {
    server.enqueue({ type: "drop", text: "one two three four", afterChunks: 2 });
    const reported: unknown[] = [];

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0, onError: ({ error }) => void reported.push(error) });
    const { parts, thrown } = await collectFullStream(result.fullStream);

    expect(textOf(parts)).toBe("one two");
    // No error part and no onError: the iteration itself throws.
    expect(partTypes(parts)).not.toContain("error");
    expect(reported).toEqual([]);
    expect(APICallError.isInstance(thrown)).toBe(true);
    if (!APICallError.isInstance(thrown)) return;
    expect(thrown.message).toBe("Failed to process successful response");
    expect(thrown.statusCode).toBe(200);
    expect(thrown.isRetryable).toBe(true);
    expect(thrown.cause).toMatchObject({ message: "terminated", cause: { code: "UND_ERR_SOCKET" } });
    await expect(result.text).rejects.toBe(thrown);
  });

  it("holds a hanging request open until the client aborts", async () => {
    server.enqueue({ type: "hang" });
    const controller = new AbortController();

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0, abortSignal: controller.signal });
    const collected = collectFullStream(result.fullStream);
    await server.waitForRequests(1);
    controller.abort();
    const { parts, thrown } = await collected;

    expect(thrown).toBeUndefined();
    expect(partTypes(parts)).toEqual(["start", "abort"]);
  });

  it("keeps the partial text of a stream that hangs after some deltas, then aborts", async () => {
    server.enqueue({ type: "hang", text: "partial words then silence", afterChunks: 2 });
    const controller = new AbortController();
    let deltas = 0;

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0, abortSignal: controller.signal });
    const { parts, thrown } = await collectFullStream(result.fullStream, (part) => {
      if (part.type === "text-delta" && ++deltas === 2) controller.abort();
    });

    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe("partial words");
    expect(parts.at(-1)?.type).toBe("abort");
  });
});
