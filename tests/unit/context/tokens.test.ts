import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { expect, it } from "vitest";
import { countRepeated, estimateTokens, tokenCounterFor } from "@/lib/context/tokens";

it("counts OpenAI-family text with the o200k tokenizer, loaded on first use, and others by the estimate", () => {
  const text = "Atrium counts tokens of an OpenAI model's context with its real tokenizer.";
  expect(tokenCounterFor("openai")(text)).toBe(countTokens(text));
  expect(tokenCounterFor("openai")(text)).not.toBe(estimateTokens(text));
  expect(tokenCounterFor("anthropic")(text)).toBe(estimateTokens(text));
});

it("counts a text counted on every model call once while it is unchanged, with the same answer; the estimate is not remembered", () => {
  const counted: string[] = [];
  const counter = (text: string) => {
    counted.push(text);
    return countTokens(text);
  };
  const catalog = "read_file: Reads a file of the working directory. {\"type\":\"object\"}";
  expect(countRepeated(catalog, counter)).toBe(countTokens(catalog));
  expect(countRepeated(`${catalog}`, counter)).toBe(countTokens(catalog));
  expect(counted).toEqual([catalog]);
  expect(countRepeated(`${catalog} changed`, counter)).toBe(countTokens(`${catalog} changed`));
  expect(counted).toHaveLength(2);
  expect(countRepeated("four", estimateTokens)).toBe(1);
});
