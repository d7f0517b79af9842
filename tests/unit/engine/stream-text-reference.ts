import type { ToolSet } from "ai";
import { z } from "zod";
import type { StepRequest, StepResult, StepSink } from "../../../lib/engine/model-step";
import { aiSdk } from "../../../lib/lazy-packages";

/**
 * The engine's model step as it was on `streamText` (before it called `doStream` itself):
 * the reference the direct implementation is compared with, part for part.
 */
export async function runStepThroughStreamText(
  request: StepRequest,
  sink: StepSink,
): Promise<StepResult> {
  // The SDK as the engine loads it (lib/lazy-packages), so errors are of the very same classes.
  const { jsonSchema, streamText, tool } = aiSdk();
  const tools: ToolSet = {};
  for (const definition of request.tools) {
    const inputSchema = jsonSchema((definition.inputJsonSchema ?? z.toJSONSchema(definition.inputSchema, { io: "input" })) as never);
    tools[definition.name] = tool({ description: definition.description, inputSchema });
  }
  const result = streamText({
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools,
    maxRetries: 0,
    abortSignal: request.signal,
    headers: request.headers,
    providerOptions: request.providerOptions,
    maxOutputTokens: request.maxOutputTokens,
    onError: () => {},
  });
  const step: StepResult = { usage: { inputTokens: null, outputTokens: 0 }, providerMetadata: undefined, toolCalls: 0, aborted: false };
  let reasoningOpen = false;
  let textOpen = false;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "reasoning-start":
        reasoningOpen = true;
        await sink.reasoningStart(part.providerMetadata as never);
        break;
      case "reasoning-delta":
        if (!reasoningOpen) {
          reasoningOpen = true;
          await sink.reasoningStart(part.providerMetadata as never);
        }
        sink.reasoningDelta(part.text);
        break;
      case "reasoning-end":
        if (reasoningOpen) await sink.reasoningEnd(part.providerMetadata as never);
        reasoningOpen = false;
        break;
      case "text-start":
        textOpen = true;
        await sink.textStart();
        break;
      case "text-delta":
        if (!textOpen) {
          textOpen = true;
          await sink.textStart();
        }
        sink.textDelta(part.text);
        break;
      case "text-end":
        if (textOpen) await sink.textEnd();
        textOpen = false;
        break;
      case "tool-call":
        step.toolCalls += 1;
        await sink.toolCall({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish-step":
        step.usage = { inputTokens: part.usage.inputTokens ?? null, outputTokens: part.usage.outputTokens ?? 0 };
        step.providerMetadata = part.providerMetadata as never;
        break;
      case "error":
        throw part.error;
      case "abort":
        step.aborted = true;
        break;
    }
  }
  return step;
}
