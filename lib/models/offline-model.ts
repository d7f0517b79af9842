import { randomUUID } from "node:crypto";
import { setTimeout as wait } from "node:timers/promises";
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { estimatePromptTokens } from "./offline-prompt";
import { planReply, type OfflinePlan } from "./offline-plan";

export const OFFLINE_MODEL_NOTICE =
  "Offline test model — not an LLM. It echoes your message and follows [[directives]].";

/** Bounds the per-turn call counts kept for `[[fail:S*N]]`; the oldest turns are forgotten first. */
const MAX_TRACKED_TURNS = 1000;

export interface OfflineModelOptions {
  generateId?: () => string;
}

export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV3 {
  return new OfflineLanguageModel(options.generateId ?? randomUUID);
}

class OfflineLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider = "offline";
  readonly modelId = "offline";
  readonly supportedUrls = {};
  private readonly callsPerTurn = new Map<string, number>();

  constructor(private readonly generateId: () => string) {}

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const plan = this.startCall(options);
    const cancelled = new AbortController();
    const signal = options.abortSignal
      ? AbortSignal.any([options.abortSignal, cancelled.signal])
      : cancelled.signal;
    const parts = this.produceParts(plan, options, signal);
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        try {
          const next = await parts.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel(reason) {
        cancelled.abort(reason);
      },
    });
    return { stream };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const plan = this.startCall(options);
    const content: LanguageModelV3Content[] = [];
    let result: Omit<LanguageModelV3GenerateResult, "content" | "warnings"> | null = null;
    const signal = options.abortSignal ?? new AbortController().signal;
    for await (const part of this.produceParts(plan, options, signal)) {
      if (part.type === "reasoning-start") content.push({ type: "reasoning", text: "" });
      else if (part.type === "text-start") content.push({ type: "text", text: "" });
      else if (part.type === "reasoning-delta" || part.type === "text-delta") {
        const current = content.at(-1);
        if (current?.type === "reasoning" || current?.type === "text") current.text += part.delta;
      } else if (part.type === "tool-call") content.push(part);
      else if (part.type === "finish") result = { finishReason: part.finishReason, usage: part.usage };
    }
    if (result === null) throw new Error("offline model: the reply ended without a finish part");
    return { ...result, content, warnings: [] };
  }

  /** Plans the call and counts it against its turn; throws the simulated failure when one is due. */
  private startCall(options: LanguageModelV3CallOptions): OfflinePlan {
    throwIfAborted(options.abortSignal);
    const plan = planReply(options);
    if (plan.failure === null) return plan;
    const call = (this.callsPerTurn.get(plan.turnKey) ?? 0) + 1;
    this.callsPerTurn.delete(plan.turnKey);
    this.callsPerTurn.set(plan.turnKey, call);
    if (this.callsPerTurn.size > MAX_TRACKED_TURNS) {
      this.callsPerTurn.delete(this.callsPerTurn.keys().next().value!);
    }
    if (call <= plan.failure.count) throw simulatedFailure(plan.failure.status);
    return plan;
  }

  private async *produceParts(
    plan: OfflinePlan,
    options: LanguageModelV3CallOptions,
    signal: AbortSignal,
  ): AsyncGenerator<LanguageModelV3StreamPart> {
    const pause = async () => {
      throwIfAborted(signal);
      if (plan.delayMs > 0) await wait(plan.delayMs, undefined, { signal });
    };
    const inputTokens = estimatePromptTokens(options.prompt);
    yield { type: "stream-start", warnings: [] };
    yield { type: "response-metadata", id: this.generateId(), modelId: this.modelId, timestamp: new Date() };

    const { reply } = plan;
    if (reply.kind === "tool-call") {
      await pause();
      yield { type: "tool-call", toolCallId: this.generateId(), toolName: reply.toolName, input: reply.input };
      const outputTokens = Math.ceil(reply.input.length / 4);
      yield finishPart("tool-calls", usage(inputTokens, outputTokens, 0));
      return;
    }

    if (reply.reasoningWords > 0) {
      const id = this.generateId();
      yield { type: "reasoning-start", id };
      for (let index = 1; index <= reply.reasoningWords; index += 1) {
        await pause();
        yield { type: "reasoning-delta", id, delta: index === 1 ? "r1" : ` r${index}` };
      }
      yield { type: "reasoning-end", id };
    }

    const id = this.generateId();
    const words = splitWords(reply.text);
    yield { type: "text-start", id };
    for (const word of words) {
      await pause();
      yield { type: "text-delta", id, delta: word };
    }
    yield { type: "text-end", id };
    yield finishPart("stop", usage(inputTokens, words.length, reply.reasoningWords));
  }
}

/** One delta per word, each carrying the whitespace before it, so the deltas join back to the exact text. */
function splitWords(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function usage(inputTokens: number, textTokens: number, reasoningTokens: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: textTokens + reasoningTokens, text: textTokens, reasoning: reasoningTokens },
  };
}

function finishPart(unified: "stop" | "tool-calls", usage: LanguageModelV3Usage): LanguageModelV3StreamPart {
  return { type: "finish", finishReason: { unified, raw: unified }, usage };
}

function simulatedFailure(status: number): APICallError {
  return new APICallError({
    message: `offline model: simulated ${status}`,
    url: "offline://model",
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: status === 429 ? { "retry-after": "0" } : {},
    isRetryable: status === 408 || status === 429 || status >= 500,
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const error = new Error("offline model: aborted", { cause: signal.reason });
  error.name = "AbortError";
  throw error;
}
