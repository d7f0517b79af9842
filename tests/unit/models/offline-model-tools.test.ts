import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createOfflineModel } from "@/lib/models/offline-model";
import { readParts } from "./stream-parts";

function recordingTools(calls: Array<{ name: string; input: unknown }>) {
  return {
    lookup: tool({
      inputSchema: z.object({ query: z.string() }),
      execute: async (input) => {
        calls.push({ name: "lookup", input });
        return `found ${input.query}\nsecond line`;
      },
    }),
    spawn_agent: tool({
      inputSchema: z.object({ task: z.string() }),
      execute: async (input) => {
        calls.push({ name: "spawn_agent", input });
        return "agent started";
      },
    }),
  };
}

describe("offline model tool directives", () => {
  it("calls the tool, then reports the first line of its result", async () => {
    const calls: Array<{ name: string; input: unknown }> = [];
    const result = streamText({
      model: createOfflineModel(),
      prompt: 'check [[tool:lookup {"query":"cats"}]] [[stream:2]]',
      tools: recordingTools(calls),
      stopWhen: stepCountIs(5),
    });
    const parts = await readParts(result.fullStream);

    expect(calls).toEqual([{ name: "lookup", input: { query: "cats" } }]);
    const steps = await result.steps;
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(parts.filter((part) => part.type === "tool-call")).toHaveLength(1);
    expect(await result.text).toBe("Tool lookup returned: found cats w1 w2");
  });

  it("runs several tool directives one per step, in order", async () => {
    const calls: Array<{ name: string; input: unknown }> = [];
    const result = await generateText({
      model: createOfflineModel(),
      prompt: '[[tool:spawn_agent {"task":"do x [[stream:3]]"}]] then [[tool:lookup {"query":"dogs"}]]',
      tools: recordingTools(calls),
      stopWhen: stepCountIs(5),
    });

    expect(calls).toEqual([
      { name: "spawn_agent", input: { task: "do x [[stream:3]]" } },
      { name: "lookup", input: { query: "dogs" } },
    ]);
    expect(result.steps).toHaveLength(3);
    expect(result.text).toBe("Tool lookup returned: found dogs");
  });

  it("gives each tool call a fresh id", async () => {
    const calls: Array<{ name: string; input: unknown }> = [];
    const result = await generateText({
      model: createOfflineModel(),
      prompt: '[[tool:lookup {"query":"a"}]][[tool:lookup {"query":"b"}]]',
      tools: recordingTools(calls),
      stopWhen: stepCountIs(5),
    });
    const ids = result.steps.flatMap((step) => step.toolCalls.map((call) => call.toolCallId));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it("answers a tool result fed back by hand", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: '[[tool:lookup {"query":"x"}]]' },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "lookup", input: { query: "x" } }],
        },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "call-1", toolName: "lookup", output: { type: "text", value: "42\nrest" } },
          ],
        },
      ],
    });
    expect(await result.text).toBe("Tool lookup returned: 42");
    expect(await result.finishReason).toBe("stop");
  });

  it("answers a steered message with an echo instead of continuing the tools", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: '[[tool:lookup {"query":"x"}]] [[tool:lookup {"query":"y"}]]' },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "lookup", input: { query: "x" } }],
        },
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "call-1", toolName: "lookup", output: { type: "text", value: "x" } }],
        },
        { role: "user", content: "change of plan" },
      ],
    });
    const parts = await readParts(result.fullStream);
    expect(parts.some((part) => part.type === "tool-call")).toBe(false);
    expect(await result.text).toBe("You said: change of plan");
  });
});
