import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText, tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { collectFullStream, textOf } from "./collect-stream";

describe("fake OpenAI server: chat completions through @ai-sdk/openai-compatible", () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const model = () => createOpenAICompatible({ name: "fake", baseURL: server.url, includeUsage: true })("m");

  it("streams text word by word and reports the scripted usage", async () => {
    server.enqueue({ type: "text", text: "Hello there, world", usage: { promptTokens: 42, completionTokens: 3 } });

    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0 });
    const { parts, thrown } = await collectFullStream(result.fullStream);

    expect(thrown).toBeUndefined();
    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
    expect(deltas).toEqual(["Hello", " there,", " world"]);
    const finishStep = parts.find((part) => part.type === "finish-step");
    expect(finishStep?.type === "finish-step" && finishStep.usage.inputTokens).toBe(42);
    expect(finishStep?.type === "finish-step" && finishStep.finishReason).toBe("stop");
    const totalUsage = await result.totalUsage;
    expect(totalUsage).toMatchObject({ inputTokens: 42, outputTokens: 3, totalTokens: 45 });
  });

  it("records the request the provider sent, including stream_options.include_usage", async () => {
    await streamText({ model: model(), system: "be brief", prompt: "hi", maxRetries: 0 }).consumeStream();

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers["content-type"]).toContain("application/json");
    expect(request.body).toMatchObject({
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("answers with the default text when the queue is empty", async () => {
    const result = streamText({ model: model(), prompt: "hi", maxRetries: 0 });
    expect(await result.text).toBe("ok");
  });

  it("splits text into the requested number of deltas and streams reasoning first", async () => {
    server.enqueue({ type: "text", text: "abcdefgh", chunks: 4, reasoning: "let me think" });

    const { parts } = await collectFullStream(streamText({ model: model(), prompt: "hi", maxRetries: 0 }).fullStream);

    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
    expect(deltas).toEqual(["ab", "cd", "ef", "gh"]);
    const reasoning = parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.text] : []));
    expect(reasoning.join("")).toBe("let me think");
    const firstReasoning = parts.findIndex((part) => part.type === "reasoning-delta");
    const firstText = parts.findIndex((part) => part.type === "text-delta");
    expect(firstReasoning).toBeLessThan(firstText);
  });

  it("delivers a tool call with its parsed input and finish reason tool-calls", async () => {
    server.enqueue({ type: "tool_call", name: "read_file", arguments: { path: "notes/todo.md", lines: 20 }, id: "call_1" });
    const tools = {
      read_file: tool({
        description: "Reads a file",
        inputSchema: z.object({ path: z.string(), lines: z.number() }),
      }),
    };

    const result = streamText({ model: model(), prompt: "read it", tools, maxRetries: 0 });
    const { parts, thrown } = await collectFullStream(result.fullStream);

    expect(thrown).toBeUndefined();
    const toolCalls = parts.filter((part) => part.type === "tool-call");
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({
      toolCallId: "call_1",
      toolName: "read_file",
      input: { path: "notes/todo.md", lines: 20 },
    });
    expect(await result.finishReason).toBe("tool-calls");
    expect(server.requests[0].body.tools[0]).toMatchObject({ type: "function", function: { name: "read_file" } });
  });

  it("answers non-streaming requests with a chat.completion", async () => {
    server.enqueue({ type: "text", text: "plain answer", usage: { promptTokens: 7, completionTokens: 2 } });

    const result = await generateText({ model: model(), prompt: "hi", maxRetries: 0 });

    expect(result.text).toBe("plain answer");
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 2 });
    expect(server.requests[0].body.stream).toBeFalsy();
  });

  it("answers successive requests with the queued steps in order, then the default", async () => {
    server.enqueue({ type: "text", text: "first" }, { type: "text", text: "second" });
    server.setDefault({ type: "text", text: "fallback" });

    const answers: string[] = [];
    for (const prompt of ["one", "two", "three"]) {
      const result = streamText({ model: model(), prompt, maxRetries: 0 });
      answers.push(textOf((await collectFullStream(result.fullStream)).parts));
    }

    expect(answers).toEqual(["first", "second", "fallback"]);
  });
});
