import http from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { streamText } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenAICompatibleStreamModel } from "@/lib/models/openai-compatible/stream-model";
import { isPushable, type PushableStreamResult } from "@/lib/models/pushed-parts";
import { startFakeOpenAIServer, type FakeOpenAIServer, type FakeStep } from "../../support/fake-openai";

/**
 * The stream model against @ai-sdk/openai-compatible itself, on the same server and the same
 * call: the same request on the wire, the same parts in the same order, the same errors.
 */
type Outcome = { parts: unknown[]; error?: unknown; rejected?: unknown };

function describeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const fields = error as Error & { statusCode?: number; isRetryable?: boolean; responseBody?: string; responseHeaders?: Record<string, string> };
  return {
    name: error.name,
    message: error.message,
    statusCode: fields.statusCode,
    isRetryable: fields.isRetryable,
    responseBody: fields.responseBody,
    retryAfter: fields.responseHeaders?.["retry-after"],
    // The cause is the transport's own error (undici's TypeError "terminated", node:http's "aborted"): only that there is one counts.
    cause: error.cause === undefined ? undefined : error.cause instanceof Error,
  };
}

/** Errors by their fields; the fake numbers its responses, so response ids are left out. */
function normalized(part: LanguageModelV3StreamPart): unknown {
  if (part.type === "error") return { type: "error", error: describeError(part.error) };
  if (part.type === "response-metadata") return { ...part, id: part.id === undefined ? undefined : "(response id)" };
  if (part.type === "raw") return { ...part, rawValue: { ...(part.rawValue as object), id: "(response id)" } };
  return part;
}

async function run(model: LanguageModelV3, options: Partial<LanguageModelV3CallOptions> = {}, pushed = false): Promise<Outcome> {
  const call: LanguageModelV3CallOptions = { prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }], ...options };
  let result;
  try {
    result = await model.doStream(call);
  } catch (rejected) {
    return { parts: [], rejected: describeError(rejected) };
  }
  if (pushed) {
    if (!isPushable(result)) throw new Error("the model offers no pushed parts");
    return readPushed(result);
  }
  const parts: unknown[] = [];
  const reader = result.stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return { parts };
      parts.push(normalized(next.value));
    }
  } catch (error) {
    return { parts, error: describeError(error) };
  }
}

/**
 * The same parts taken pushed (as the engine takes them): each part's sink call answers a
 * promise now and then, which must hold the parts after it.
 */
function readPushed(result: PushableStreamResult): Promise<Outcome> {
  return new Promise((resolve) => {
    const parts: unknown[] = [];
    let holding = false;
    result.pushParts({
      part(part) {
        expect(holding).toBe(false);
        parts.push(normalized(part));
        if (parts.length % 2 === 0) return;
        holding = true;
        return new Promise<void>((settle) =>
          setImmediate(() => {
            holding = false;
            settle();
          }),
        );
      },
      end: () => resolve({ parts }),
      fail: (error) => resolve({ parts, error: describeError(error) }),
    });
  });
}

const TOOLS: LanguageModelV3CallOptions["tools"] = [
  { type: "function", name: "read_file", description: "Reads a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
];

describe("OpenAICompatibleStreamModel against @ai-sdk/openai-compatible (fake server)", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const provider = () => createOpenAICompatible({ name: "fake", baseURL: server.url, apiKey: "sk-fake", includeUsage: true });
  const sdk = () => provider().chatModel("m");
  const ours = () => new OpenAICompatibleStreamModel(provider().chatModel("m"));

  /** Runs the step through the SDK's model, then through ours, and answers both outcomes and both requests. */
  async function both(step: FakeStep, options: Partial<LanguageModelV3CallOptions> = {}) {
    const before = server.requests.length;
    server.enqueue(step);
    const expected = await run(sdk(), options);
    server.enqueue(step);
    const actual = await run(ours(), options);
    server.enqueue(step);
    const pushed = await run(ours(), options, true);
    const [sdkRequest, ourRequest, pushedRequest] = server.requests.slice(before);
    expect(pushed).toEqual(expected);
    expect(pushedRequest.body).toEqual(sdkRequest.body);
    return { expected, actual, sdkRequest, ourRequest };
  }

  const steps: Array<[string, FakeStep]> = [
    ["a text answer with usage", { type: "text", text: "Hello there, how are you today?", usage: { promptTokens: 12, completionTokens: 7, cachedTokens: 3 } }],
    ["reasoning then text", { type: "text", text: "The answer is 4.", reasoning: "Two and two make four.", usage: { promptTokens: 5, completionTokens: 9, reasoningTokens: 4 } }],
    ["a tool call", { type: "tool_call", name: "read_file", arguments: { path: "README.md" }, id: "call_1" }],
    ["a tool call with malformed arguments", { type: "tool_call", name: "read_file", arguments: '{"path": "READ', id: "call_2" }],
    ["a 429 with Retry-After", { type: "error", status: 429, retryAfterSeconds: 7 }],
    ["a 400 with the provider's message", { type: "error", status: 400, message: "messages[1].content must not be empty" }],
    ["a 502 with an HTML body", { type: "error", status: 502, body: "<html>Bad Gateway</html>" }],
    ["a stream dropped after two deltas", { type: "drop", text: "one two three four five", afterChunks: 2 }],
  ];

  it.each(steps)("gives the same parts, errors and request for %s", async (_name, step) => {
    const { expected, actual, sdkRequest, ourRequest } = await both(step, { tools: TOOLS, toolChoice: { type: "auto" }, maxOutputTokens: 100 });
    expect(actual).toEqual(expected);
    expect(ourRequest.body).toEqual(sdkRequest.body);
    for (const header of ["authorization", "content-type", "user-agent", "content-length"]) expect(ourRequest.headers[header], header).toBe(sdkRequest.headers[header]);
  });

  it("passes raw chunks through when asked, as the SDK does", async () => {
    const { expected, actual } = await both({ type: "text", text: "raw chunks here" }, { includeRawChunks: true });
    expect(actual).toEqual(expected);
    expect(actual.parts.some((part) => (part as { type: string }).type === "raw")).toBe(true);
  });

  it("sends provider options and the caller's headers as the SDK does", async () => {
    const options = { providerOptions: { fake: { reasoningEffort: "high" } }, headers: { "x-atrium-turn": "t1" } };
    const { expected, actual, sdkRequest, ourRequest } = await both({ type: "text", text: "ok" }, options);
    expect(actual).toEqual(expected);
    expect(ourRequest.body).toEqual(sdkRequest.body);
    expect(ourRequest.body.reasoning_effort).toBe("high");
    expect(ourRequest.headers["x-atrium-turn"]).toBe("t1");
  });

  it("ends with the signal's reason when aborted mid-stream, as the SDK does", async () => {
    const outcomes: Outcome[] = [];
    for (const model of [sdk(), ours()]) {
      const seen = server.requests.length;
      server.enqueue({ type: "hang", text: "partial answer", afterChunks: 1 });
      const controller = new AbortController();
      const result = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }], abortSignal: controller.signal });
      await server.waitForRequests(seen + 1);
      const reader = result.stream.getReader();
      const parts: unknown[] = [];
      let error: unknown;
      try {
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          parts.push(normalized(next.value));
          if ((next.value as { type: string }).type === "text-delta") controller.abort(new Error("stopped by the owner"));
        }
      } catch (caught) {
        error = caught;
      }
      outcomes.push({ parts, error: describeError(error) });
    }
    expect(outcomes[1].parts).toEqual(outcomes[0].parts);
    expect(outcomes[1].error).toEqual(outcomes[0].error);
    expect(outcomes[1].error).toMatchObject({ message: "Failed to process successful response", cause: true });
  });

  it("fails the pushed parts with the same error when aborted mid-stream, and nothing comes after it", async () => {
    const seen = server.requests.length;
    server.enqueue({ type: "hang", text: "partial answer", afterChunks: 1 });
    const controller = new AbortController();
    const result = await ours().doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }], abortSignal: controller.signal });
    await server.waitForRequests(seen + 1);
    if (!isPushable(result)) throw new Error("the model offers no pushed parts");
    const calls: string[] = [];
    const failure = await new Promise<unknown>((resolve) => {
      result.pushParts({
        part(part) {
          calls.push(part.type);
          if (part.type === "text-delta") controller.abort(new Error("stopped by the owner"));
        },
        end: () => resolve("ended"),
        fail: resolve,
      });
    });
    expect(calls.at(-1)).toBe("text-delta");
    expect(describeError(failure)).toMatchObject({ message: "Failed to process successful response", cause: true });
    expect(() => result.stream).toThrow(/already being read/);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("already stopped"));
    const outcome = await run(ours(), { abortSignal: controller.signal });
    expect(outcome.rejected).toMatchObject({ message: "already stopped" });
  });

  it("works under streamText like any provider", async () => {
    server.enqueue({ type: "text", text: "through streamText", usage: { promptTokens: 3, completionTokens: 2 } });
    const result = streamText({ model: ours(), prompt: "hi" });
    expect(await result.text).toBe("through streamText");
    expect((await result.usage).outputTokens).toBe(2);
  });

  it("answers doGenerate with the SDK's own model", async () => {
    server.enqueue({ type: "text", text: "not streamed" });
    const result = await ours().doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(result.content).toEqual([{ type: "text", text: "not streamed" }]);
  });
});

/** Bodies the scripted server does not make: odd chunk shapes, bad JSON, no finish, CRLF framing, split UTF-8. */
describe("OpenAICompatibleStreamModel against @ai-sdk/openai-compatible (raw event streams)", () => {
  let body: string[] = [];
  const raw = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const pieces = [...body];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return response.end();
        response.write(Buffer.from(piece, "latin1"), next);
      };
      next();
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    raw.closeAllConnections();
    await new Promise((resolve) => raw.close(resolve));
  });
  afterEach(() => {
    body = [];
  });

  const provider = () => createOpenAICompatible({ name: "raw", baseURL: url, includeUsage: true });
  const chunk = (value: object) => `data: ${JSON.stringify(value)}\n\n`;
  const base = { id: "c1", object: "chat.completion.chunk", created: 1_700_000_000, model: "m" };
  const delta = (value: object, finish: string | null = null) => chunk({ ...base, choices: [{ index: 0, delta: value, finish_reason: finish }] });
  const utf8 = (text: string) => Buffer.from(text, "utf8").toString("latin1");

  const cases: Array<[string, string[]]> = [
    ["content arrays with thinking parts", [delta({ role: "assistant", content: [{ type: "thinking", thinking: [{ type: "text", text: "hmm" }] }, { type: "text", text: "yes" }] }), delta({}, "stop"), "data: [DONE]\n\n"]],
    ["a refusal that is not a string, then a real one", [delta({ refusal: false, content: "a" }), delta({ refusal: "I cannot" }), delta({}, "stop")]],
    ["a chunk that fails the schema", [delta({ content: "a" }), chunk({ ...base, choices: [{ delta: { content: 42 } }] }), delta({}, "stop")]],
    ["a chunk that is not JSON", [delta({ content: "a" }), "data: {not json\n\n", delta({}, "stop")]],
    ["an error object in the stream", [delta({ content: "a" }), chunk({ error: { message: "overloaded", type: "server_error", code: 529 } })]],
    ["a stream that ends without a finish reason", [delta({ content: "cut" })]],
    ["CRLF framing, comments and multi-line data", [`: comment\r\n${delta({ content: "x" }).replace("\n\n", "\r\n\r\n")}`, `data: {"id":"c1","choices":\r\ndata: [{"delta":{"content":"y"},"finish_reason":"stop"}]}\r\n\r\n`]],
    ["a multi-byte character split across writes", (() => {
      const whole = utf8(delta({ content: "héllo ✓ wörld" }));
      const at = whole.indexOf("\u00e2") + 1;
      return [whole.slice(0, at), whole.slice(at), delta({}, "stop")];
    })()],
    ["usage with details and prediction tokens", [delta({ content: "u" }), chunk({ ...base, choices: [{ delta: {}, finish_reason: "length" }], usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1, accepted_prediction_tokens: 3, rejected_prediction_tokens: 1 } } })]],
    ["streamed tool-call deltas without index", [delta({ tool_calls: [{ id: "t1", function: { name: "read_file", arguments: '{"pa' } }] }), delta({ tool_calls: [{ id: "t1", function: { arguments: 'th":"a"}' } }] }), delta({}, "tool_calls")]],
    ["streamed tool-call deltas by index, name later", [delta({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }), delta({ tool_calls: [{ index: 0, id: "t9", function: { name: "read_file", arguments: '"b"}' } }] }), delta({}, "tool_calls")]],
  ];

  it.each(cases)("gives the same parts and errors for %s", async (_name, pieces) => {
    body = pieces;
    const expected = await run(provider().chatModel("m"));
    body = pieces;
    const actual = await run(new OpenAICompatibleStreamModel(provider().chatModel("m")));
    expect(actual).toEqual(expected);
    body = pieces;
    expect(await run(new OpenAICompatibleStreamModel(provider().chatModel("m")), {}, true)).toEqual(expected);
    expect(expected.parts.length).toBeGreaterThan(1);
  });
});
