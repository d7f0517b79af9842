import { InvalidResponseDataError, type LanguageModelV3FinishReason, type LanguageModelV3StreamPart, type LanguageModelV3Usage } from "@ai-sdk/provider";
import type { StreamingToolCallTracker } from "@ai-sdk/provider-utils";

/**
 * Chat-completion chunks to LanguageModelV3 stream parts, as @ai-sdk/openai-compatible 2.0.92's
 * `doStream` maps them (its TransformStream, carried over statement for statement so the parts,
 * their ids and their order are the same), called once per parsed chunk instead of as a stream
 * stage. tests/unit/openai-compatible-stream.test.ts compares both part for part.
 */
export type ParsedChunk = { success: true; value: any; rawValue: unknown } | { success: false; error: unknown; rawValue: unknown };

export interface ChunkMapperOptions {
  emit: (part: LanguageModelV3StreamPart) => void;
  metadataKey: string;
  includeRawChunks: boolean;
  convertUsage: (usage: any) => LanguageModelV3Usage;
  metadataExtractor?: { processChunk(rawValue: unknown): void; buildMetadata(): Record<string, Record<string, any>> | undefined };
  newToolCallTracker: (controller: { enqueue: (part: LanguageModelV3StreamPart) => void }, options: ConstructorParameters<typeof StreamingToolCallTracker>[1]) => StreamingToolCallTracker;
  generateId: () => string;
}

interface PendingToolCall {
  id: string | null;
  bufferedArguments: string;
  extraContent: unknown;
}

export function mapFinishReason(finishReason: string | null | undefined, hasRefusal: boolean): LanguageModelV3FinishReason["unified"] {
  switch (finishReason) {
    case "stop":
      return hasRefusal ? "content-filter" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "function_call":
    case "tool_calls":
      return "tool-calls";
    default:
      return "other";
  }
}

function responseMetadata({ id, model, created }: { id?: string | null; model?: string | null; created?: number | null }) {
  return { id: id ?? undefined, modelId: model ?? undefined, timestamp: created != null ? new Date(created * 1000) : undefined };
}

function contentParts(content: unknown): Array<{ type: "text" | "reasoning"; text: string }> {
  if (content == null) return [];
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  const result: Array<{ type: "text" | "reasoning"; text: string }> = [];
  for (const part of content as Array<{ type: string; text?: unknown; thinking?: unknown }>) {
    if (part.type === "text" && typeof part.text === "string") {
      if (part.text.length > 0) result.push({ type: "text", text: part.text });
    } else if (part.type === "thinking" && Array.isArray(part.thinking)) {
      const text = part.thinking
        .filter((chunk) => chunk != null && typeof chunk === "object" && "type" in chunk && chunk.type === "text" && "text" in chunk && typeof chunk.text === "string")
        .map((chunk) => chunk.text)
        .join("");
      if (text.length > 0) result.push({ type: "reasoning", text });
    }
  }
  return result;
}

export class ChunkMapper {
  private readonly tracker: StreamingToolCallTracker;
  private readonly pendingToolCalls = new Map<number, PendingToolCall>();
  private readonly forwardedToolCallIndices = new Set<number>();
  private finishReason: LanguageModelV3FinishReason | undefined;
  private rawFinishReason: string | undefined;
  private usage: any;
  private isFirstChunk = true;
  private isActiveReasoning = false;
  private isActiveText = false;
  private hasRefusal = false;

  constructor(
    private readonly options: ChunkMapperOptions,
    warnings: unknown[],
  ) {
    const key = options.metadataKey;
    this.tracker = options.newToolCallTracker(
      { enqueue: options.emit },
      {
        generateId: options.generateId,
        extractMetadata: (delta: any) => {
          const thoughtSignature = delta.extra_content?.google?.thought_signature;
          return thoughtSignature ? { [key]: { thoughtSignature } } : undefined;
        },
        buildToolCallProviderMetadata: (metadata: any) => metadata,
      } as ConstructorParameters<typeof StreamingToolCallTracker>[1],
    );
    options.emit({ type: "stream-start", warnings: warnings as never });
  }

  chunk(chunk: ParsedChunk): void {
    const emit = this.options.emit;
    if (this.options.includeRawChunks) emit({ type: "raw", rawValue: chunk.rawValue });
    if (!chunk.success) {
      this.finishReason = { unified: "error", raw: undefined };
      emit({ type: "error", error: chunk.error });
      return;
    }
    this.options.metadataExtractor?.processChunk(chunk.rawValue);
    const value = chunk.value;
    if ("error" in value) {
      this.finishReason = { unified: "error", raw: undefined };
      emit({ type: "error", error: value.error });
      return;
    }
    if (this.isFirstChunk) {
      this.isFirstChunk = false;
      emit({ type: "response-metadata", ...responseMetadata(value) });
    }
    if (value.usage != null) this.usage = value.usage;
    const choice = value.choices[0];
    if (choice?.finish_reason != null) this.rawFinishReason = choice.finish_reason;
    if (choice?.delta == null) return;
    const delta = choice.delta;
    const reasoningContent = delta.reasoning_content ?? delta.reasoning;
    if (reasoningContent) this.reasoningDelta(reasoningContent);
    for (const part of contentParts(delta.content)) {
      if (part.type === "reasoning") this.reasoningDelta(part.text);
      else this.textDelta(part.text);
    }
    const refusal = delta.refusal;
    if (refusal != null && refusal.length > 0) {
      this.hasRefusal = true;
      this.textDelta(refusal);
    }
    if (delta.tool_calls != null && delta.tool_calls.length > 0) {
      if (this.isActiveReasoning) {
        emit({ type: "reasoning-end", id: "reasoning-0" });
        this.isActiveReasoning = false;
      }
      for (const toolCallDelta of delta.tool_calls) this.toolCallDelta(toolCallDelta);
    }
  }

  /** The body ended (the SDK's `flush`): open parts end, buffered tool calls go out, then `finish`. */
  end(): void {
    const emit = this.options.emit;
    if (this.isActiveReasoning) emit({ type: "reasoning-end", id: "reasoning-0" });
    if (this.isActiveText) emit({ type: "text-end", id: "txt-0" });
    for (const [index, pending] of this.pendingToolCalls) {
      this.tracker.processDelta({ index, id: pending.id, function: { arguments: pending.bufferedArguments } } as never);
    }
    this.pendingToolCalls.clear();
    this.tracker.flush();
    if (this.rawFinishReason != null) {
      this.finishReason = { unified: mapFinishReason(this.rawFinishReason, this.hasRefusal), raw: this.rawFinishReason };
    }
    if (this.finishReason == null) {
      this.finishReason = { unified: "error", raw: undefined };
      emit({ type: "error", error: new InvalidResponseDataError({ data: undefined, message: "Response stream ended without a finish reason." }) });
    }
    const key = this.options.metadataKey;
    const providerMetadata: Record<string, Record<string, any>> = { [key]: {}, ...this.options.metadataExtractor?.buildMetadata() };
    const details = this.usage?.completion_tokens_details;
    if (details?.accepted_prediction_tokens != null) providerMetadata[key].acceptedPredictionTokens = details.accepted_prediction_tokens;
    if (details?.rejected_prediction_tokens != null) providerMetadata[key].rejectedPredictionTokens = details.rejected_prediction_tokens;
    emit({ type: "finish", finishReason: this.finishReason, usage: this.options.convertUsage(this.usage), providerMetadata });
  }

  private reasoningDelta(delta: string): void {
    const emit = this.options.emit;
    if (this.isActiveText) {
      emit({ type: "text-end", id: "txt-0" });
      this.isActiveText = false;
    }
    if (!this.isActiveReasoning) {
      emit({ type: "reasoning-start", id: "reasoning-0" });
      this.isActiveReasoning = true;
    }
    emit({ type: "reasoning-delta", id: "reasoning-0", delta });
  }

  private textDelta(delta: string): void {
    const emit = this.options.emit;
    if (this.isActiveReasoning) {
      emit({ type: "reasoning-end", id: "reasoning-0" });
      this.isActiveReasoning = false;
    }
    if (!this.isActiveText) {
      emit({ type: "text-start", id: "txt-0" });
      this.isActiveText = true;
    }
    emit({ type: "text-delta", id: "txt-0", delta });
  }

  private toolCallDelta(toolCallDelta: any): void {
    const index = toolCallDelta.index;
    if (index == null || this.forwardedToolCallIndices.has(index)) {
      this.tracker.processDelta(toolCallDelta);
      return;
    }
    let pending = this.pendingToolCalls.get(index);
    if (pending == null) {
      pending = { id: toolCallDelta.id ?? null, bufferedArguments: "", extraContent: toolCallDelta.extra_content ?? null };
      this.pendingToolCalls.set(index, pending);
    } else {
      if (pending.id == null && toolCallDelta.id != null) pending.id = toolCallDelta.id;
      if (pending.extraContent == null && toolCallDelta.extra_content != null) pending.extraContent = toolCallDelta.extra_content;
    }
    const argumentsDelta = toolCallDelta.function?.arguments;
    if (argumentsDelta != null) pending.bufferedArguments += argumentsDelta;
    const name = toolCallDelta.function?.name;
    if (name != null) {
      this.tracker.processDelta({
        index,
        id: pending.id,
        function: { name, arguments: pending.bufferedArguments },
        extra_content: pending.extraContent ?? undefined,
      } as never);
      this.pendingToolCalls.delete(index);
      this.forwardedToolCallIndices.add(index);
    }
  }
}
