import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { expect, it } from "vitest";
import { estimateTokens, tokenCounterFor } from "@/lib/context/tokens";

it("counts OpenAI-family text with the o200k tokenizer, loaded on first use, and others by the estimate", () => {
  const text = "Atrium counts tokens of an OpenAI model's context with its real tokenizer.";
  expect(tokenCounterFor("openai")(text)).toBe(countTokens(text));
  expect(tokenCounterFor("openai")(text)).not.toBe(estimateTokens(text));
  expect(tokenCounterFor("anthropic")(text)).toBe(estimateTokens(text));
});
