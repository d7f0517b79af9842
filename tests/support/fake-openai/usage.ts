import type { FakeContentStep } from "./fake-step";
import { countWords } from "./split-text";

export interface ResolvedUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedTokens: number;
}

/**
 * The step's usage, or a deterministic estimate: about four characters of prompt JSON per
 * input token (so prompts that grow report growing usage) and one output token per word.
 */
export function resolveUsage(step: FakeContentStep, promptCharacters: number): ResolvedUsage {
  const estimatedPrompt = Math.max(1, Math.ceil(promptCharacters / 4));
  if (step.type === "tool_call") {
    const argumentTokens = Math.ceil(encodeArguments(step.arguments).length / 4) + 1;
    return {
      promptTokens: step.usage?.promptTokens ?? estimatedPrompt,
      completionTokens: step.usage?.completionTokens ?? argumentTokens,
      reasoningTokens: step.usage?.reasoningTokens ?? 0,
      cachedTokens: step.usage?.cachedTokens ?? 0,
    };
  }
  const reasoningWords = countWords(step.reasoning);
  return {
    promptTokens: step.usage?.promptTokens ?? estimatedPrompt,
    completionTokens: step.usage?.completionTokens ?? countWords(step.text) + reasoningWords,
    reasoningTokens: step.usage?.reasoningTokens ?? reasoningWords,
    cachedTokens: step.usage?.cachedTokens ?? 0,
  };
}

export function encodeArguments(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? {});
}
