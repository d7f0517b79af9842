/**
 * The cheap check of a streamed chat.completion.chunk. Answers true only for chunks the
 * provider's zod chunk schema surely accepts and whose fields the stream mapping reads are
 * already what that schema would give (strings, numbers, null or absent): plain text,
 * reasoning, finish and usage chunks, nearly all of a stream. Anything else (tool calls,
 * content arrays, errors, unexpected types) is left to the schema itself, so what passes and
 * what fails, and the error of a failure, are the SDK's.
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nullishOr(value: unknown, type: "string" | "number"): boolean {
  return value === undefined || value === null || typeof value === type;
}

function plainDelta(delta: unknown): boolean {
  if (delta === undefined || delta === null) return true;
  if (!isObject(delta)) return false;
  const role = delta.role;
  if (!(role === undefined || role === null || role === "assistant" || role === "")) return false;
  if (delta.tool_calls !== undefined && delta.tool_calls !== null) return false;
  // The schema turns a refusal that is not a string into undefined: only strings pass as they are.
  return nullishOr(delta.content, "string") && nullishOr(delta.refusal, "string") && nullishOr(delta.reasoning_content, "string") && nullishOr(delta.reasoning, "string");
}

function plainUsage(usage: unknown): boolean {
  if (usage === undefined || usage === null) return true;
  if (!isObject(usage)) return false;
  if (usage.prompt_tokens_details != null || usage.completion_tokens_details != null) return false;
  return nullishOr(usage.prompt_tokens, "number") && nullishOr(usage.completion_tokens, "number") && nullishOr(usage.total_tokens, "number");
}

export function isPlainChunk(value: unknown): value is Json & { choices: Json[] } {
  if (!isObject(value) || "error" in value) return false;
  if (!nullishOr(value.id, "string") || !nullishOr(value.created, "number") || !nullishOr(value.model, "string")) return false;
  const choices = value.choices;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isObject(choice) || !nullishOr(choice.finish_reason, "string") || !plainDelta(choice.delta)) return false;
  }
  return plainUsage(value.usage);
}
