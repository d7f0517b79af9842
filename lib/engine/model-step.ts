import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { jsonSchema, ModelMessage, ToolSet } from "ai";
import { z } from "zod";
import { aiSdk } from "../lazy-packages";
import type { AnyToolDefinition } from "../tools/tool";

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

export interface StepRequest {
  model: LanguageModelV3;
  system: string;
  messages: ModelMessage[];
  tools: readonly AnyToolDefinition[];
  signal: AbortSignal;
  headers: Record<string, string>;
  providerOptions?: Record<string, Record<string, never>>;
  maxOutputTokens?: number;
}

export interface StepResult {
  usage: { inputTokens: number | null; outputTokens: number };
  /** What the provider said about the step (e.g. openai.reasoningContext, the mode it applied). */
  providerMetadata: ProviderMetadata;
  toolCalls: number;
  aborted: boolean;
}

/**
 * One model call through the AI SDK, with the SDK's own retries off (the engine retries
 * and tells clients). HTTP errors arrive as `error` parts; a dropped stream throws from
 * the iteration; an abort ends the stream with an `abort` part.
 */
export async function runModelStep(request: StepRequest, sink: StepSink): Promise<StepResult> {
  const result = aiSdk().streamText({
    model: request.model,
    system: request.system,
    messages: request.messages,
    tools: toToolSet(request.tools),
    maxRetries: 0,
    abortSignal: request.signal,
    headers: request.headers,
    providerOptions: request.providerOptions,
    maxOutputTokens: request.maxOutputTokens,
    // Errors arrive as `error` parts and are handled there; the SDK's default would print the whole request.
    onError: () => {},
  });
  const step: StepResult = { usage: { inputTokens: null, outputTokens: 0 }, providerMetadata: undefined, toolCalls: 0, aborted: false };
  let reasoningOpen = false;
  let textOpen = false;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "reasoning-start":
        reasoningOpen = true;
        await sink.reasoningStart(part.providerMetadata as ProviderMetadata);
        break;
      case "reasoning-delta":
        if (!reasoningOpen) {
          reasoningOpen = true;
          await sink.reasoningStart(part.providerMetadata as ProviderMetadata);
        }
        sink.reasoningDelta(part.text);
        break;
      case "reasoning-end":
        if (reasoningOpen) await sink.reasoningEnd(part.providerMetadata as ProviderMetadata);
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
        step.usage = {
          inputTokens: part.usage.inputTokens ?? null,
          outputTokens: part.usage.outputTokens ?? 0,
        };
        step.providerMetadata = part.providerMetadata as ProviderMetadata;
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

/**
 * Tool input schemas are fixed zod objects; converting one to JSON Schema on every model call
 * was a tenth of a turn's CPU, so each is converted once. The SDK and providers only read it.
 */
const inputJsonSchemas = new WeakMap<AnyToolDefinition["inputSchema"], ReturnType<typeof jsonSchema>>();

function inputJsonSchema(schema: AnyToolDefinition["inputSchema"]): ReturnType<typeof jsonSchema> {
  let converted = inputJsonSchemas.get(schema);
  if (!converted) {
    converted = aiSdk().jsonSchema(z.toJSONSchema(schema, { io: "input" }) as never);
    inputJsonSchemas.set(schema, converted);
  }
  return converted;
}

function toToolSet(tools: readonly AnyToolDefinition[]): ToolSet {
  const { jsonSchema, tool } = aiSdk();
  const set: ToolSet = {};
  for (const definition of tools) {
    // A plain JSON schema, so the SDK passes the model's input through and runTool's zod check
    // turns bad input into a result the model can read.
    // Issue 14 hook: MCP tools carry their server's JSON Schema as is.
    const inputSchema = definition.inputJsonSchema ? jsonSchema(definition.inputJsonSchema as never) : inputJsonSchema(definition.inputSchema);
    set[definition.name] = tool({ description: definition.description, inputSchema });
  }
  return set;
}
