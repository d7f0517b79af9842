import { APICallError, InvalidPromptError, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart, type LanguageModelV3Usage } from "@ai-sdk/provider";
import { NoOutputGeneratedError, type ModelMessage } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runModelStep, type StepRequest, type StepResult, type StepSink } from "../../../lib/engine/model-step";
import type { PartSink, PushableStreamResult } from "../../../lib/models/pushed-parts";
import type { AnyToolDefinition } from "../../../lib/tools/tool";
import { runStepThroughStreamText } from "./stream-text-reference";

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 5, reasoning: 2 },
};
const finish: LanguageModelV3StreamPart = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  providerMetadata: { openai: { reasoningContext: "all_turns" } },
};

const readFile: AnyToolDefinition = {
  name: "read_file",
  description: "Reads a file.",
  inputSchema: z.object({ path: z.string() }) as z.ZodType<unknown>,
  execute: async () => ({ status: "completed", output: "" }) as never,
};
const mcpTool: AnyToolDefinition = {
  name: "mcp__echo",
  description: "Echoes.",
  inputSchema: z.unknown(),
  inputJsonSchema: { type: "object", properties: { text: { type: "string" } } },
  execute: async () => ({ status: "completed", output: "" }) as never,
};

const messages: ModelMessage[] = [
  { role: "user", content: "hello" },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "read_file", input: { path: "a" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c0", toolName: "read_file", output: { type: "text", value: "A" } }] },
  { role: "user", content: [{ type: "text", text: "and now?" }, { type: "image", image: new Uint8Array([1, 2, 3]), mediaType: "image/png" }] },
];

type Outcome = { calls: unknown[]; result?: StepResult; error?: unknown; options: LanguageModelV3CallOptions[] };

/** Runs `parts` through a step (the direct one or the streamText reference) and logs what the sink saw. */
async function run(
  implementation: (request: StepRequest, sink: StepSink) => Promise<StepResult>,
  stream: () => ReadableStream<LanguageModelV3StreamPart>,
  options: {
    tools?: AnyToolDefinition[];
    messages?: ModelMessage[];
    controller?: AbortController;
    abortAfterDeltas?: number;
    doStream?: () => Promise<never>;
    /** The provider offers the parts pushed (as lib/models/openai-compatible does), not only as a stream. */
    pushed?: boolean;
  } = {},
): Promise<Outcome> {
  const controller = options.controller ?? new AbortController();
  const model = new MockLanguageModelV3({ doStream: options.doStream ?? (async () => (options.pushed ? pushing(stream()) : { stream: stream() })) });
  const calls: unknown[] = [];
  let deltas = 0;
  const sink: StepSink = {
    reasoningStart: async (metadata) => void calls.push(["reasoningStart", metadata]),
    reasoningDelta: (text) => void calls.push(["reasoningDelta", text]),
    reasoningEnd: async (metadata) => void calls.push(["reasoningEnd", metadata]),
    textStart: async () => void calls.push(["textStart"]),
    textDelta: (text) => {
      calls.push(["textDelta", text]);
      deltas += 1;
      if (options.abortAfterDeltas === deltas) controller.abort(new Error("stop"));
    },
    textEnd: async () => void calls.push(["textEnd"]),
    toolCall: async (call) => void calls.push(["toolCall", call]),
  };
  const request: StepRequest = {
    model,
    system: "You are a test.",
    messages: options.messages ?? messages,
    tools: options.tools ?? [readFile, mcpTool],
    signal: controller.signal,
    headers: { "x-atrium-turn": "turn_1" },
    providerOptions: { openai: {} },
    maxOutputTokens: 321,
  };
  try {
    return { calls, result: await implementation(request, sink), options: model.doStreamCalls };
  } catch (error) {
    return { calls, error, options: model.doStreamCalls };
  }
}

/**
 * A result whose parts are pushed to a sink, as a provider with `pushParts` sends them: in
 * order, each after the sink's promise for the one before settles; the stream's error as `fail`.
 */
function pushing(stream: ReadableStream<LanguageModelV3StreamPart>): PushableStreamResult {
  let taken = false;
  return {
    get stream(): ReadableStream<LanguageModelV3StreamPart> {
      throw new Error("a step on pushed parts must not read the stream");
    },
    pushParts(sink: PartSink) {
      expect(taken).toBe(false);
      taken = true;
      const reader = stream.getReader();
      let stopped = false;
      void (async () => {
        try {
          for (;;) {
            const next = await reader.read();
            if (stopped) return;
            if (next.done) return sink.end();
            const pending = sink.part(next.value);
            if (pending) await pending;
          }
        } catch (error) {
          if (!stopped) sink.fail(error);
        }
      })();
      return () => {
        stopped = true;
        reader.cancel().catch(() => {});
      };
    },
  };
}

/**
 * The direct step (reading the stream, and taking the same parts pushed) and the streamText
 * reference, on the same parts, must agree on everything the engine sees.
 */
async function expectSameAsStreamText(stream: () => ReadableStream<LanguageModelV3StreamPart>, options: Parameters<typeof run>[2] = {}) {
  const direct = await run(runModelStep, stream, options);
  if (!options.doStream) {
    const pushed = await run(runModelStep, stream, { ...options, controller: undefined, pushed: true });
    expect(pushed.calls).toEqual(direct.calls);
    expect(pushed.result).toEqual(direct.result);
    expect(pushed.error).toEqual(direct.error);
    if (direct.error) expect(Object.getPrototypeOf(pushed.error)).toBe(Object.getPrototypeOf(direct.error));
  }
  const reference = await run(runStepThroughStreamText, stream, { ...options, controller: undefined });
  expect(direct.calls).toEqual(reference.calls);
  expect(direct.result).toEqual(reference.result);
  // The SDK reports a part that was never started as a bare string; the step throws an Error with those words.
  // A refused prompt says the same; its cause (the schema's report) names the messages it was given, here only those checked.
  const errorOf = (error: unknown) =>
    typeof error === "string" ? new Error(error) : InvalidPromptError.isInstance(error) ? { name: error.name, message: error.message } : error;
  expect(errorOf(direct.error)).toEqual(errorOf(reference.error));
  if (direct.error) expect(Object.getPrototypeOf(direct.error)).toBe(Object.getPrototypeOf(typeof reference.error === "string" ? new Error() : reference.error));
  // streamText hands the provider its own signal that follows ours; everything else is the same.
  const withoutSignal = (options: LanguageModelV3CallOptions[]) => options.map(({ abortSignal, ...rest }) => ({ ...rest, signal: abortSignal !== undefined }));
  expect(withoutSignal(direct.options)).toEqual(withoutSignal(reference.options));
  return direct;
}

const parts = (list: LanguageModelV3StreamPart[]) => () => convertArrayToReadableStream(list);

describe("runModelStep on the provider's doStream", () => {
  it("streams reasoning and text to the sink, and reports usage and provider metadata as streamText did", async () => {
    const outcome = await expectSameAsStreamText(
      parts([
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: "r1", modelId: "m" },
        { type: "reasoning-start", id: "r", providerMetadata: { anthropic: { signature: "s" } } },
        { type: "reasoning-delta", id: "r", delta: "think" },
        { type: "reasoning-end", id: "r", providerMetadata: { anthropic: { signature: "t" } } },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hel" },
        { type: "text-delta", id: "t", delta: "" },
        { type: "text-delta", id: "t", delta: "lo" },
        { type: "text-end", id: "t" },
        finish,
      ]),
    );
    expect(outcome.calls).toEqual([
      ["reasoningStart", { anthropic: { signature: "s" } }],
      ["reasoningDelta", "think"],
      ["reasoningEnd", { anthropic: { signature: "t" } }],
      ["textStart"],
      ["textDelta", "Hel"],
      ["textDelta", "lo"],
      ["textEnd"],
    ]);
    expect(outcome.result).toEqual({ usage: { inputTokens: 12, outputTokens: 7 }, providerMetadata: { openai: { reasoningContext: "all_turns" } }, toolCalls: 0, aborted: false });
  });

  it("sends the provider the prompt, tools, settings and headers streamText sent", async () => {
    const outcome = await expectSameAsStreamText(parts([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }, finish]));
    const options = outcome.options[0];
    expect(options.prompt[0]).toEqual({ role: "system", content: "You are a test." });
    expect(options.tools?.map((tool) => tool.name)).toEqual(["read_file", "mcp__echo"]);
    expect(options.tools?.[1]).toMatchObject({ type: "function", inputSchema: mcpTool.inputJsonSchema });
    expect(options.toolChoice).toEqual({ type: "auto" });
    expect(options.maxOutputTokens).toBe(321);
    expect(options.headers).toEqual({ "x-atrium-turn": "turn_1" });
    expect(options.providerOptions).toEqual({ openai: {} });
    expect(outcome.calls).toEqual([["textStart"], ["textDelta", "x"]]);
  });

  it("sends no tools and no tool choice when the step has none", async () => {
    const outcome = await expectSameAsStreamText(parts([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }, finish]), { tools: [] });
    expect(outcome.options[0].tools).toBeUndefined();
    expect(outcome.options[0].toolChoice).toBeUndefined();
  });

  it("parses tool-call inputs the way the SDK did: JSON, {} for empty, raw text when not JSON or unknown", async () => {
    const call = (toolCallId: string, toolName: string, input: string): LanguageModelV3StreamPart => ({ type: "tool-call", toolCallId, toolName, input });
    const outcome = await expectSameAsStreamText(
      parts([
        { type: "tool-input-start", id: "c1", toolName: "read_file" },
        { type: "tool-input-delta", id: "c1", delta: '{"path":"a.txt"}' },
        { type: "tool-input-end", id: "c1" },
        call("c1", "read_file", '{"path":"a.txt"}'),
        call("c2", "read_file", "  "),
        call("c3", "read_file", "{not json"),
        call("c4", "no_such_tool", '{"a":1}'),
        call("c5", "no_such_tool", ""),
        call("c6", "read_file", '{"__proto__":{"x":1}}'),
        { ...finish, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
      ]),
    );
    expect(outcome.result?.toolCalls).toBe(6);
    expect(outcome.calls).toEqual([
      ["toolCall", { toolCallId: "c1", toolName: "read_file", input: { path: "a.txt" } }],
      ["toolCall", { toolCallId: "c2", toolName: "read_file", input: {} }],
      ["toolCall", { toolCallId: "c3", toolName: "read_file", input: "{not json" }],
      ["toolCall", { toolCallId: "c4", toolName: "no_such_tool", input: { a: 1 } }],
      ["toolCall", { toolCallId: "c5", toolName: "no_such_tool", input: "" }],
      ["toolCall", { toolCallId: "c6", toolName: "read_file", input: '{"__proto__":{"x":1}}' }],
    ]);
  });

  it("throws an error part's error, after what streamed before it", async () => {
    const failure = new APICallError({ message: "overloaded", url: "u", requestBodyValues: {}, statusCode: 200, isRetryable: true });
    const outcome = await expectSameAsStreamText(
      parts([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "par" }, { type: "error", error: failure }, finish]),
    );
    expect(outcome.error).toBe(failure);
    expect(outcome.calls).toEqual([["textStart"], ["textDelta", "par"]]);
  });

  it("throws the provider's HTTP error as the same APICallError, so the engine can retry on its status", async () => {
    const failure = new APICallError({ message: "busy", url: "u", requestBodyValues: {}, statusCode: 429, isRetryable: true, responseHeaders: { "retry-after": "1" } });
    const outcome = await expectSameAsStreamText(parts([]), { doStream: async () => Promise.reject(failure) });
    expect(outcome.error).toBe(failure);
  });

  it("throws a dropped stream's error from the read", async () => {
    // Like a socket: what arrived is read before the connection's end is noticed.
    const dropped = () => {
      const queue: LanguageModelV3StreamPart[] = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "half" }];
      return new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const next = queue.shift();
          if (next) return controller.enqueue(next);
          await new Promise((resolve) => setImmediate(resolve));
          controller.error(new TypeError("terminated"));
        },
      });
    };
    const outcome = await expectSameAsStreamText(dropped);
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(outcome.calls).toEqual([["textStart"], ["textDelta", "half"]]);
  });

  it("fails on a delta or end of a part that was never started, as the SDK did", async () => {
    const text = await expectSameAsStreamText(parts([{ type: "text-delta", id: "t", delta: "x" }, finish]));
    expect((text.error as Error).message).toBe("text part t not found");
    expect(text.calls).toEqual([["textStart"], ["textDelta", "x"]]);
    const reasoning = await expectSameAsStreamText(parts([{ type: "reasoning-end", id: "r" }, finish]));
    expect((reasoning.error as Error).message).toBe("reasoning part r not found");
  });

  it("sends reasoning carried back with its provider options, and refuses what the SDK's message schema refuses, as before", async () => {
    const reasoning: ModelMessage = {
      role: "assistant",
      content: [{ type: "reasoning", text: "earlier", providerOptions: { anthropic: { signature: "s", absent: undefined } } }],
    };
    const sent = await expectSameAsStreamText(parts([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }, finish]), {
      messages: [...messages, reasoning],
    });
    expect(sent.options[0].prompt.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "reasoning", text: "earlier" }] });
    const bad: ModelMessage = { role: "assistant", content: [{ type: "reasoning", text: "x", providerOptions: { anthropic: { when: (() => 1) as never } } }] };
    const refused = await expectSameAsStreamText(parts([finish]), { messages: [...messages, bad] });
    expect(InvalidPromptError.isInstance(refused.error)).toBe(true);
    const empty = await expectSameAsStreamText(parts([finish]), { messages: [] });
    expect((empty.error as Error).message).toMatch(/messages must not be empty/);
  });

  it("fails a stream that ends with no output and no finish", async () => {
    const outcome = await expectSameAsStreamText(parts([{ type: "stream-start", warnings: [] }]));
    expect(NoOutputGeneratedError.isInstance(outcome.error)).toBe(true);
  });

  it.each([
    ["read from the stream", false],
    ["pushed", true],
  ])("ends aborted, without an error, once the signal is aborted mid-stream (parts %s)", async (_how, pushed) => {
    const controller = new AbortController();
    let cancelled = false;
    let started = false;
    const endless = new ReadableStream<LanguageModelV3StreamPart>({
      pull(streamController) {
        if (!started) streamController.enqueue({ type: "text-start", id: "t" });
        started = true;
        streamController.enqueue({ type: "text-delta", id: "t", delta: "w" });
      },
      cancel() {
        cancelled = true;
      },
    });
    const outcome = await run(runModelStep, () => endless, { controller, abortAfterDeltas: 3, pushed });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toMatchObject({ aborted: true, toolCalls: 0 });
    expect(outcome.calls).toEqual([["textStart"], ["textDelta", "w"], ["textDelta", "w"], ["textDelta", "w"]]);
    expect(cancelled).toBe(true);
  });

  it("ends aborted when the request itself is aborted", async () => {
    const controller = new AbortController();
    const outcome = await run(runModelStep, parts([]), {
      controller,
      doStream: async () => {
        controller.abort(new Error("stop"));
        throw new DOMException("aborted", "AbortError");
      },
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toMatchObject({ aborted: true });
  });
});
