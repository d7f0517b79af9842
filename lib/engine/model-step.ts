import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { aiSdk } from "../lazy-packages";
import { modelCallOptions, toolCallInput, type ModelCallInput } from "./model-call";

type ProviderMetadata = Record<string, Record<string, unknown>> | undefined;

export interface StepSink {
  reasoningStart(providerMetadata: ProviderMetadata): Promise<void>;
  reasoningDelta(text: string): void;
  reasoningEnd(providerMetadata: ProviderMetadata): Promise<void>;
  textStart(): Promise<void>;
  textDelta(text: string): void;
  textEnd(): Promise<void>;
  toolCall(call: { toolCallId: string; toolName: string; input: unknown }): Promise<void>;
}

export type StepRequest = ModelCallInput;

export interface StepResult {
  usage: { inputTokens: number | null; outputTokens: number };
  /** What the provider said about the step (e.g. openai.reasoningContext, the mode it applied). */
  providerMetadata: ProviderMetadata;
  toolCalls: number;
  aborted: boolean;
}

/** Parts that count as output: a stream that ends with none of them and no finish is an error. */
const OUTPUT_PARTS = new Set<string>([
  "file",
  "source",
  "text-start",
  "text-end",
  "text-delta",
  "reasoning-start",
  "reasoning-end",
  "reasoning-delta",
  "tool-input-start",
  "tool-input-end",
  "tool-input-delta",
  "tool-approval-request",
  "tool-call",
  "tool-result",
]);

/**
 * One model call straight on the provider's `doStream`, with the options `streamText` would
 * build (see model-call.ts) but none of its per-part stream stages: each delta goes from the
 * provider's stream to the sink. What the engine relies on is as with `streamText`: HTTP
 * errors are thrown as the provider's APICallError (no SDK retries: the engine retries and
 * tells clients), an `error` part is thrown, a dropped stream throws from the read, a stream
 * that ends with no output and no finish throws NoOutputGeneratedError, and once the signal
 * is aborted the step ends with `aborted` whatever the stream does.
 */
export async function runModelStep(request: StepRequest, sink: StepSink): Promise<StepResult> {
  const step: StepResult = { usage: { inputTokens: null, outputTokens: 0 }, providerMetadata: undefined, toolCalls: 0, aborted: false };
  const signal = request.signal;
  const options = await modelCallOptions(request);
  let stream: ReadableStream<LanguageModelV3StreamPart>;
  try {
    ({ stream } = await request.model.doStream(options));
  } catch (error) {
    if (signal.aborted) return { ...step, aborted: true };
    throw error;
  }
  const toolNames = new Set(options.tools?.map((tool) => tool.name));
  const reader = stream.getReader();
  let finished = false;
  let ended = false;
  let output = false;
  let reasoningOpen = false;
  let textOpen = false;
  /** Text and reasoning parts started and not yet ended, by id. */
  const openParts = { text: new Set<string>(), reasoning: new Set<string>() };
  try {
    for (;;) {
      let next: ReadableStreamReadResult<LanguageModelV3StreamPart>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal.aborted) {
          step.aborted = true;
          return step;
        }
        throw error;
      }
      if (next.done) {
        ended = true;
        break;
      }
      if (signal.aborted) {
        step.aborted = true;
        return step;
      }
      const part = next.value;
      if (OUTPUT_PARTS.has(part.type)) output = true;
      switch (part.type) {
        case "reasoning-start":
          openParts.reasoning.add(part.id);
          reasoningOpen = true;
          await sink.reasoningStart(part.providerMetadata as ProviderMetadata);
          break;
        case "reasoning-delta":
          if (!reasoningOpen) {
            reasoningOpen = true;
            await sink.reasoningStart(part.providerMetadata as ProviderMetadata);
          }
          sink.reasoningDelta(part.delta);
          expectOpen(openParts, "reasoning", part.id);
          break;
        case "reasoning-end":
          if (reasoningOpen) await sink.reasoningEnd(part.providerMetadata as ProviderMetadata);
          reasoningOpen = false;
          expectOpen(openParts, "reasoning", part.id);
          openParts.reasoning.delete(part.id);
          break;
        case "text-start":
          openParts.text.add(part.id);
          textOpen = true;
          await sink.textStart();
          break;
        case "text-delta":
          // The SDK drops empty deltas that carry nothing else.
          if (part.delta.length === 0 && part.providerMetadata == null) break;
          if (!textOpen) {
            textOpen = true;
            await sink.textStart();
          }
          sink.textDelta(part.delta);
          expectOpen(openParts, "text", part.id);
          break;
        case "text-end":
          if (textOpen) await sink.textEnd();
          textOpen = false;
          expectOpen(openParts, "text", part.id);
          openParts.text.delete(part.id);
          break;
        case "tool-call": {
          step.toolCalls += 1;
          const known = toolNames.has(part.toolName) || (part.providerExecuted === true && part.dynamic === true);
          await sink.toolCall({ toolCallId: part.toolCallId, toolName: part.toolName, input: toolCallInput(part.input, known) });
          break;
        }
        case "finish":
          finished = true;
          step.usage = { inputTokens: part.usage.inputTokens.total ?? null, outputTokens: part.usage.outputTokens.total ?? 0 };
          step.providerMetadata = part.providerMetadata as ProviderMetadata;
          break;
        case "error":
          throw part.error;
      }
    }
  } finally {
    // Leaving early (an error, an abort, a sink that threw) lets the provider's request go.
    if (!ended) reader.cancel().catch(() => {});
  }
  if (!finished && !output) {
    throw new (aiSdk().NoOutputGeneratedError)({ message: "No output generated. The model stream ended without a finish chunk." });
  }
  return step;
}

/** A delta or end for a part that was never started fails the step after the sink saw it, as with the SDK and in its words. */
function expectOpen(openParts: Record<"text" | "reasoning", Set<string>>, kind: "text" | "reasoning", id: string): void {
  if (!openParts[kind].has(id)) throw new Error(`${kind} part ${id} not found`);
}
