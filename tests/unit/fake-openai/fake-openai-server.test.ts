import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FAKE_MODEL_ID, startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { splitIntoDeltas } from "../../support/fake-openai/split-text";

describe("fake OpenAI server: HTTP surface", () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("listens on loopback only, under /v1", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it("lists one model", async () => {
    const response = await fetch(`${server.url}/models`);

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ object: "list", data: [{ id: FAKE_MODEL_ID, object: "model" }] });
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
  });

  it("answers unknown routes with a 404 OpenAI error", async () => {
    const response = await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" });

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: "Unknown route POST /v1/embeddings (fake server)" } });
  });

  it("rejects a body the endpoint cannot read with a 400, without consuming a step", async () => {
    server.enqueue({ type: "text", text: "kept for later" });

    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: '{"model": "m"}' });
    const followUp = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [] }),
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(await followUp.json()).toMatchObject({ choices: [{ message: { content: "kept for later" } }] });
  });

  it("writes real chat-completions SSE frames ending in [DONE]", async () => {
    server.enqueue({ type: "text", text: "hi there", usage: { promptTokens: 3, completionTokens: 2 } });

    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true, stream_options: { include_usage: true } }),
    });
    const frames = (await response.text()).split("\n\n").filter((frame) => frame.length > 0);

    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(frames.every((frame) => frame.startsWith("data: "))).toBe(true);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice("data: ".length)));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  });

  it("resolves waitForRequests once enough requests have arrived", async () => {
    const waiting = server.waitForRequests(2);
    await fetch(`${server.url}/models`);
    await fetch(`${server.url}/models`);

    expect(await waiting).toHaveLength(2);
  });

  it("closes while a request hangs", async () => {
    server.enqueue({ type: "hang" });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    });
    await server.waitForRequests(1);

    await server.close();

    await expect(pending).rejects.toThrow();
  });
});

describe("splitIntoDeltas", () => {
  it("splits per word, keeping whitespace, or into equal slices", () => {
    expect(splitIntoDeltas("  one two\nthree ")).toEqual(["  one", " two", "\nthree "]);
    expect(splitIntoDeltas("abcde", 2)).toEqual(["ab", "cde"]);
    expect(splitIntoDeltas("ab", 5)).toEqual(["a", "b"]);
    expect(splitIntoDeltas("")).toEqual([]);
  });
});
