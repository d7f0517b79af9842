import { z } from "zod";
import type { FakeContentStep } from "./fake-step";
import type { AnswerContext, GenerationRequest, Protocol, StreamEvent } from "./protocol";
import { splitIntoDeltas } from "./split-text";
import { encodeArguments, type ResolvedUsage } from "./usage";

const responsesRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.unknown())]),
  stream: z.boolean().nullish(),
  include: z.array(z.string()).nullish(),
  reasoning: z
    .looseObject({ effort: z.string().nullish(), summary: z.string().nullish(), context: z.string().nullish() })
    .nullish(),
});

interface ResponsesRequest extends GenerationRequest {
  includeEncryptedReasoning: boolean;
  reasoning: { effort: string | null; summary: string | null; context: string | null };
}

const ARGUMENT_PIECES = 3;

/**
 * `POST /v1/responses` in the OpenAI Responses API's event format. The @ai-sdk/openai
 * provider reads response.created, output_item.added/done, output_text.delta,
 * reasoning_summary_*, function_call_arguments.delta and response.completed; the other
 * events a real server sends (in_progress, content_part.*, *.done) are included for realism.
 */
export const responsesProtocol: Protocol<ResponsesRequest> = {
  parseRequest(body) {
    const parsed = responsesRequestSchema.safeParse(body);
    if (!parsed.success) return { success: false, message: z.prettifyError(parsed.error) };
    const { data } = parsed;
    return {
      success: true,
      request: {
        model: data.model,
        stream: data.stream === true,
        promptCharacters: JSON.stringify(data.input).length,
        includeEncryptedReasoning: data.include?.includes("reasoning.encrypted_content") ?? false,
        reasoning: {
          effort: data.reasoning?.effort ?? null,
          summary: data.reasoning?.summary ?? null,
          context: data.reasoning?.context ?? null,
        },
      },
    };
  },

  streamEvents(step, request, context) {
    let sequenceNumber = 0;
    const events: StreamEvent[] = [];
    const emit = (type: string, fields: object, textDelta = false) => {
      events.push({ name: type, payload: { type, sequence_number: sequenceNumber++, ...fields }, textDelta });
    };
    const answer = buildAnswer(step, request, context);

    emit("response.created", { response: answer.inProgress });
    emit("response.in_progress", { response: answer.inProgress });
    answer.items.forEach((item, outputIndex) => {
      emit("response.output_item.added", { output_index: outputIndex, item: item.added });
      for (const event of item.events) {
        emit(event.type, { item_id: item.added.id, output_index: outputIndex, ...event.fields }, event.textDelta);
      }
      emit("response.output_item.done", { output_index: outputIndex, item: item.done });
    });
    emit("response.completed", { response: answer.completed });
    return events;
  },

  completeResponse(step, request, context) {
    return buildAnswer(step, request, context).completed;
  },
};

interface ItemEvent {
  type: string;
  fields: object;
  textDelta: boolean;
}

interface OutputItem {
  added: { id: string } & Record<string, unknown>;
  events: ItemEvent[];
  done: Record<string, unknown>;
}

function buildAnswer(step: FakeContentStep, request: ResponsesRequest, context: AnswerContext) {
  const items: OutputItem[] = [];
  if (step.type === "text") {
    if (step.reasoning !== undefined) items.push(reasoningItem(step.reasoning, request, context));
    items.push(messageItem(step.text, step.chunks, context));
  } else {
    items.push(functionCallItem(step, context));
  }
  const appliedContext = step.type === "text" && step.reasoningContext !== undefined
    ? step.reasoningContext
    : request.reasoning.context === "auto" ? null : request.reasoning.context;
  const base = {
    id: context.nextId("resp"),
    object: "response",
    created_at: context.createdAt,
    model: request.model,
    reasoning: {
      effort: request.reasoning.effort,
      summary: request.reasoning.summary,
      ...(appliedContext === null ? {} : { context: appliedContext }),
    },
    incomplete_details: null,
    error: null,
  };
  return {
    items,
    inProgress: { ...base, status: "in_progress", output: [], usage: null },
    completed: { ...base, status: "completed", output: items.map((item) => item.done), usage: usagePayload(context.usage) },
  };
}

function reasoningItem(reasoning: string, request: ResponsesRequest, context: AnswerContext): OutputItem {
  const id = context.nextId("rs");
  const encrypted = request.includeEncryptedReasoning ? { encrypted_content: `fake-encrypted-${id}` } : {};
  const summaryPart = (text: string) => ({ type: "summary_text", text });
  return {
    added: { id, type: "reasoning", summary: [], ...encrypted },
    events: [
      { type: "response.reasoning_summary_part.added", fields: { summary_index: 0, part: summaryPart("") }, textDelta: false },
      ...splitIntoDeltas(reasoning).map((delta) => ({
        type: "response.reasoning_summary_text.delta",
        fields: { summary_index: 0, delta },
        textDelta: false,
      })),
      { type: "response.reasoning_summary_text.done", fields: { summary_index: 0, text: reasoning }, textDelta: false },
      { type: "response.reasoning_summary_part.done", fields: { summary_index: 0, part: summaryPart(reasoning) }, textDelta: false },
    ],
    done: { id, type: "reasoning", summary: [summaryPart(reasoning)], ...encrypted },
  };
}

function messageItem(text: string, chunks: number | undefined, context: AnswerContext): OutputItem {
  const id = context.nextId("msg");
  const outputText = (value: string) => ({ type: "output_text", text: value, annotations: [], logprobs: [] });
  return {
    added: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
    events: [
      { type: "response.content_part.added", fields: { content_index: 0, part: outputText("") }, textDelta: false },
      ...splitIntoDeltas(text, chunks).map((delta) => ({
        type: "response.output_text.delta",
        fields: { content_index: 0, delta, logprobs: [] },
        textDelta: true,
      })),
      { type: "response.output_text.done", fields: { content_index: 0, text, logprobs: [] }, textDelta: false },
      { type: "response.content_part.done", fields: { content_index: 0, part: outputText(text) }, textDelta: false },
    ],
    done: { id, type: "message", status: "completed", role: "assistant", content: [outputText(text)] },
  };
}

function functionCallItem(step: Extract<FakeContentStep, { type: "tool_call" }>, context: AnswerContext): OutputItem {
  const id = context.nextId("fc");
  const callId = step.id ?? context.nextId("call");
  const encoded = encodeArguments(step.arguments);
  const item = { id, type: "function_call", call_id: callId, name: step.name };
  return {
    added: { ...item, status: "in_progress", arguments: "" },
    events: [
      ...splitIntoDeltas(encoded, ARGUMENT_PIECES).map((delta) => ({
        type: "response.function_call_arguments.delta",
        fields: { delta },
        textDelta: false,
      })),
      { type: "response.function_call_arguments.done", fields: { arguments: encoded }, textDelta: false },
    ],
    done: { ...item, status: "completed", arguments: encoded },
  };
}

function usagePayload(usage: ResolvedUsage) {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
