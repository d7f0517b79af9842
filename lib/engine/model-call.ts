import type { JSONSchema7, LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import { z } from "zod";
import { aiInternal } from "../lazy-packages";
import type { AnyToolDefinition } from "../tools/tool";

export interface ModelCallInput {
  model: LanguageModelV3;
  system: string;
  messages: ModelMessage[];
  tools: readonly AnyToolDefinition[];
  signal: AbortSignal;
  headers: Record<string, string>;
  providerOptions?: Record<string, Record<string, never>>;
  maxOutputTokens?: number;
}

/**
 * The options `streamText` would hand the provider for one step, built with the SDK's own
 * prompt helpers (same validation, same conversion, same download rules), without the
 * stream pipeline around the call: tools as function tools with their JSON Schema, tool
 * choice auto when there are tools, no SDK retries, no raw chunks.
 */
export async function modelCallOptions(input: ModelCallInput): Promise<LanguageModelV3CallOptions> {
  const { convertToLanguageModelPrompt, prepareCallSettings } = aiInternal();
  const callSettings = prepareCallSettings({ maxOutputTokens: input.maxOutputTokens });
  const standardized = await checkedPrompt(input.system, input.messages);
  const prompt = await convertToLanguageModelPrompt({
    prompt: standardized,
    supportedUrls: await input.model.supportedUrls,
    download: undefined,
    abortSignal: input.signal,
  });
  // Keyed by name like the SDK's tool set: a later definition of a name replaces an earlier one in its place.
  const byName = new Map<string, AnyToolDefinition>();
  for (const definition of input.tools) byName.set(definition.name, definition);
  const tools = byName.size > 0 ? [...byName.values()].map(functionTool) : undefined;
  return {
    ...callSettings,
    tools,
    toolChoice: tools ? { type: "auto" } : undefined,
    responseFormat: undefined,
    prompt,
    providerOptions: input.providerOptions,
    abortSignal: input.signal,
    headers: input.headers,
    includeRawChunks: false,
  };
}

/**
 * The SDK checks the whole history against its ModelMessage schema on every call: a tenth of a
 * millisecond a message, tens of milliseconds of blocked event loop for a long conversation.
 * The history is built from records (text, ids, tool input typed as unknown, attachment bytes),
 * which that schema always accepts; only provider options carried back from a provider's
 * metadata (reasoning) are checked, by the SDK, as before. Empty histories and system messages
 * take the SDK's own path for its own errors and warnings.
 */
async function checkedPrompt(system: string, messages: ModelMessage[]): ReturnType<typeof import("ai/internal").standardizePrompt> {
  const { standardizePrompt } = aiInternal();
  if (messages.length === 0 || messages.some((message) => message.role === "system")) return standardizePrompt({ system, messages });
  const carried = messages.filter(carriesProviderOptions);
  if (carried.length > 0) await standardizePrompt({ system, messages: carried });
  return { system, messages };
}

function carriesProviderOptions(message: ModelMessage): boolean {
  if (message.providerOptions !== undefined) return true;
  return typeof message.content !== "string" && message.content.some((part) => "providerOptions" in part && part.providerOptions !== undefined);
}

/**
 * Tool input schemas are fixed zod objects; converting one to JSON Schema on every model call
 * was a tenth of a turn's CPU, so each is converted once. Providers only read it.
 */
const inputJsonSchemas = new WeakMap<AnyToolDefinition["inputSchema"], JSONSchema7>();

function inputJsonSchema(schema: AnyToolDefinition["inputSchema"]): JSONSchema7 {
  let converted = inputJsonSchemas.get(schema);
  if (!converted) {
    converted = z.toJSONSchema(schema, { io: "input" }) as JSONSchema7;
    inputJsonSchemas.set(schema, converted);
  }
  return converted;
}

/**
 * A plain JSON schema, so the model's input is passed through and runTool's zod check turns
 * bad input into a result the model can read. MCP tools carry their server's JSON Schema as is.
 */
function functionTool(definition: AnyToolDefinition): LanguageModelV3FunctionTool {
  return {
    type: "function",
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputJsonSchema ? (definition.inputJsonSchema as JSONSchema7) : inputJsonSchema(definition.inputSchema),
    providerOptions: undefined,
  };
}

/**
 * A tool call's input as the SDK gave it: the parsed JSON, `{}` for an empty input to a known
 * tool, and the raw text when it is not JSON (or is JSON with prototype keys, which the SDK's
 * secure parse refuses), so the tool's own check can answer the model.
 */
export function toolCallInput(text: string, known: boolean): unknown {
  if (known && text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text)) && hasPrototypeKey(value)) {
      return text;
    }
    return value;
  } catch {
    return text;
  }
}

// The patterns secure-json-parse (inside the SDK) uses to decide whether to look deeper.
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

function hasPrototypeKey(root: object): boolean {
  const own = (node: object, key: string) => Object.prototype.hasOwnProperty.call(node, key);
  let next: object[] = [root];
  while (next.length > 0) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (own(node, "__proto__")) return true;
      const constructor = (node as { constructor?: unknown }).constructor;
      if (own(node, "constructor") && constructor !== null && typeof constructor === "object" && own(constructor, "prototype")) return true;
      for (const key in node) {
        const value = (node as Record<string, unknown>)[key];
        if (value && typeof value === "object") next.push(value);
      }
    }
  }
  return false;
}
