import { createRequire } from "node:module";
import type { ModelMessage } from "ai";

/* The o200k tables take a large share of start-up to load: only an OpenAI-family model's first count pays for them. */
const requireTokenizer = createRequire(import.meta.url);
let o200k: ((text: string) => number) | null = null;
function countO200k(text: string): number {
  o200k ??= (requireTokenizer("gpt-tokenizer/cjs/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base")).countTokens;
  return o200k(text);
}

export type TokenCounter = (text: string) => number;

/**
 * A documented estimate for model families without a local tokenizer: about four
 * characters per token, which over-counts code slightly and under-counts CJK text.
 */
export const estimateTokens: TokenCounter = (text) => Math.ceil(text.length / 4);

/** OpenAI-family models get the real o200k tokenizer; everything else the estimate. */
export function tokenCounterFor(provider: string | undefined): TokenCounter {
  return provider === "openai" ? countO200k : estimateTokens;
}

/** Past this many remembered texts per counter the memory starts again: it holds the frames of recent calls, not a history. */
const MAX_REMEMBERED = 64;
const remembered = new WeakMap<TokenCounter, Map<string, number>>();

/**
 * `count(text)`, remembered for texts counted on every model call and rarely changed (a frame's
 * system prompt and tool catalog): the o200k tokenizer takes a fraction of a millisecond per
 * ten kilobytes of them. The estimate is cheaper than the lookup, so it is not remembered.
 */
export function countRepeated(text: string, count: TokenCounter): number {
  if (count === estimateTokens) return count(text);
  let counts = remembered.get(count);
  if (!counts) remembered.set(count, (counts = new Map()));
  let tokens = counts.get(text);
  if (tokens === undefined) {
    tokens = count(text);
    if (counts.size >= MAX_REMEMBERED) counts.clear();
    counts.set(text, tokens);
  }
  return tokens;
}

/** Per-message framing the providers add (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

export function countMessages(messages: readonly ModelMessage[], count: TokenCounter): number {
  let total = 0;
  for (const message of messages) total += MESSAGE_OVERHEAD + count(messageText(message));
  return total;
}

export function messageText(message: ModelMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => {
      switch (part.type) {
        case "text":
        case "reasoning":
          return part.text;
        case "tool-call":
          return `${part.toolName} ${JSON.stringify(part.input)}`;
        case "tool-result":
          return part.output.type === "text" || part.output.type === "error-text" ? part.output.value : JSON.stringify(part.output);
        default:
          return "";
      }
    })
    .join("\n");
}
