import { z } from "zod";
import type { FakeContentStep } from "./fake-step";
import { DONE_PAYLOAD, type GenerationRequest, type Protocol, type StreamEvent } from "./protocol";
import { splitIntoDeltas } from "./split-text";
import { encodeArguments, type ResolvedUsage } from "./usage";

const chatCompletionsRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.unknown()),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

interface ChatCompletionsRequest extends GenerationRequest {
  includeUsage: boolean;
}

const ARGUMENT_PIECES = 3;

/** `POST /v1/chat/completions` in OpenAI's chat-completions format, streamed or not. */
export const chatCompletionsProtocol: Protocol<ChatCompletionsRequest> = {
  parseRequest(body) {
    const parsed = chatCompletionsRequestSchema.safeParse(body);
    if (!parsed.success) return { success: false, message: z.prettifyError(parsed.error) };
    return {
      success: true,
      request: {
        model: parsed.data.model,
        stream: parsed.data.stream === true,
        promptCharacters: JSON.stringify(parsed.data.messages).length,
        includeUsage: parsed.data.stream_options?.include_usage === true,
      },
    };
  },

  streamEvents(step, request, context) {
    const id = context.nextId("chatcmpl");
    const chunk = (delta: object, finishReason: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created: context.createdAt,
      model: request.model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
    const events: StreamEvent[] = [{ payload: chunk({ role: "assistant", content: "" }), textDelta: false }];

    if (step.type === "text") {
      for (const piece of splitIntoDeltas(step.reasoning ?? "")) {
        events.push({ payload: chunk({ reasoning_content: piece }), textDelta: false });
      }
      for (const piece of splitIntoDeltas(step.text, step.chunks)) {
        events.push({ payload: chunk({ content: piece }), textDelta: true });
      }
    } else {
      const callId = step.id ?? context.nextId("call");
      events.push({
        payload: chunk({
          tool_calls: [{ index: 0, id: callId, type: "function", function: { name: step.name, arguments: "" } }],
        }),
        textDelta: false,
      });
      for (const piece of splitIntoDeltas(encodeArguments(step.arguments), ARGUMENT_PIECES)) {
        events.push({ payload: chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }), textDelta: false });
      }
    }

    events.push({ payload: chunk({}, finishReasonOf(step)), textDelta: false });
    if (request.includeUsage) {
      events.push({
        payload: {
          id,
          object: "chat.completion.chunk",
          created: context.createdAt,
          model: request.model,
          system_fingerprint: "fp_fake",
          choices: [],
          usage: usagePayload(context.usage),
        },
        textDelta: false,
      });
    }
    events.push({ payload: DONE_PAYLOAD, textDelta: false });
    return events;
  },

  completeResponse(step, request, context) {
    const message =
      step.type === "text"
        ? {
            role: "assistant",
            content: step.text,
            ...(step.reasoning === undefined ? {} : { reasoning_content: step.reasoning }),
          }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: step.id ?? context.nextId("call"),
                type: "function",
                function: { name: step.name, arguments: encodeArguments(step.arguments) },
              },
            ],
          };
    return {
      id: context.nextId("chatcmpl"),
      object: "chat.completion",
      created: context.createdAt,
      model: request.model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(step) }],
      usage: usagePayload(context.usage),
    };
  },
};

function finishReasonOf(step: FakeContentStep): string {
  return step.type === "tool_call" ? "tool_calls" : "stop";
}

function usagePayload(usage: ResolvedUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
