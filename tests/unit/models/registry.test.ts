import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/config";
import { AtriumError } from "@/lib/errors";
import { OFFLINE_MODEL_NOTICE } from "@/lib/models/offline-model";
import { createModelRegistry } from "@/lib/models/registry";

const config = parseConfig({
  models: [
    { id: "local", provider: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b", apiKeyEnv: "LOCAL_KEY", effort: true },
    { id: "gpt", provider: "openai", model: "gpt-5-mini", effort: true },
    { id: "gpt-reasoning", provider: "openai", reasoningContext: "current_turn", apiKeyEnv: "WORK_OPENAI_KEY" },
    { id: "claude", provider: "anthropic", model: "claude-sonnet-4-5", effort: true, contextWindow: 200000 },
    { id: "plain", provider: "openai", api: "responses" },
  ],
});

describe("model registry", () => {
  it("lists every model with its limits, notice and availability", () => {
    const registry = createModelRegistry(config, { OPENAI_API_KEY: "sk-test" });
    expect(registry.list()).toEqual([
      { id: "offline", provider: "offline", contextWindow: 32000, maxOutputTokens: 4000, effort: false, notice: OFFLINE_MODEL_NOTICE, available: true, attachments: [] },
      { id: "local", provider: "openai-compatible", contextWindow: 32000, maxOutputTokens: 4000, effort: true, notice: null, available: true, attachments: [] },
      { id: "gpt", provider: "openai", contextWindow: 32000, maxOutputTokens: 4000, effort: true, notice: null, available: true, attachments: ["image", "pdf"] },
      { id: "gpt-reasoning", provider: "openai", contextWindow: 32000, maxOutputTokens: 4000, effort: false, notice: null, available: false, attachments: ["image", "pdf"] },
      { id: "claude", provider: "anthropic", contextWindow: 200000, maxOutputTokens: 4000, effort: true, notice: null, available: false, attachments: ["image", "pdf"] },
      { id: "plain", provider: "openai", contextWindow: 32000, maxOutputTokens: 4000, effort: false, notice: null, available: true, attachments: ["image", "pdf"] },
    ]);
  });

  it("builds each provider's language model under the provider's own model name", () => {
    const registry = createModelRegistry(config, {});
    expect(registry.languageModel("local")).toMatchObject({ provider: "local.chat", modelId: "qwen2.5:7b" });
    expect(registry.languageModel("gpt")).toMatchObject({ provider: "openai.chat", modelId: "gpt-5-mini" });
    expect(registry.languageModel("gpt-reasoning")).toMatchObject({ provider: "openai.responses", modelId: "gpt-reasoning" });
    expect(registry.languageModel("plain")).toMatchObject({ provider: "openai.responses", modelId: "plain" });
    expect(registry.languageModel("claude")).toMatchObject({ provider: "anthropic.messages", modelId: "claude-sonnet-4-5" });
  });

  it("shares one offline model and answers through it", async () => {
    const registry = createModelRegistry(config, {});
    const model = registry.languageModel("offline");
    expect(registry.languageModel("offline")).toBe(model);
    expect(await streamText({ model, prompt: "ping" }).text).toBe("You said: ping");
  });

  it("refuses an unknown model with missing_model", () => {
    const registry = createModelRegistry(config, {});
    expect(registry.get("nope")).toBeUndefined();
    expect(() => registry.languageModel("nope")).toThrow(AtriumError);
    expect(() => registry.languageModel("nope")).toThrow(expect.objectContaining({ code: "missing_model" }));
  });

  it("maps effort to each provider's options only where the model supports effort", () => {
    const registry = createModelRegistry(config, {});
    expect(registry.providerOptions("gpt", "high")).toEqual({ openai: { reasoningEffort: "high" } });
    expect(registry.providerOptions("local", "low")).toEqual({ local: { reasoningEffort: "low" } });
    expect(registry.providerOptions("claude", "medium")).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 8192 } },
    });
    expect(registry.providerOptions("claude", "low")?.anthropic.thinking.budgetTokens).toBe(2048);
    expect(registry.providerOptions("claude", "high")?.anthropic.thinking.budgetTokens).toBe(24576);
    expect(registry.providerOptions("gpt", null)).toBeUndefined();
    expect(registry.providerOptions("plain", "high")).toBeUndefined();
    expect(registry.providerOptions("offline", "high")).toBeUndefined();
  });
});
