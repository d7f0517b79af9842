import { createRequire } from "node:module";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AtriumConfig, ModelConfig } from "../config/config";
import { AtriumError } from "../errors";
import { acceptedAttachments, type AttachmentKind } from "./attachment-kinds";
import { OFFLINE_MODEL_NOTICE, createOfflineModel } from "./offline-model";
import { OpenAICompatibleStreamModel } from "./openai-compatible/stream-model";

export type Effort = "low" | "medium" | "high";

/*
 * Providers load on the first call to a model of theirs, synchronously (languageModel is sync):
 * importing all three at start cost about half a second of a server start that needs none of
 * them to answer /api/health, and most configs use one provider or only the offline model.
 */
const requireProvider = createRequire(import.meta.url);
const providers = {
  anthropic: () => (requireProvider("@ai-sdk/anthropic") as typeof import("@ai-sdk/anthropic")).createAnthropic,
  openai: () => (requireProvider("@ai-sdk/openai") as typeof import("@ai-sdk/openai")).createOpenAI,
  openaiCompatible: () =>
    (requireProvider("@ai-sdk/openai-compatible") as typeof import("@ai-sdk/openai-compatible")).createOpenAICompatible,
};

export interface ModelInfo {
  id: string;
  provider: ModelConfig["provider"];
  contextWindow: number;
  maxOutputTokens: number;
  effort: boolean;
  notice: string | null;
  available: boolean;
  /** What it takes as image or file parts (config `attachments`, else the provider's default). */
  attachments: AttachmentKind[];
}

export interface ModelRegistry {
  list(): ModelInfo[];
  get(id: string): ModelConfig | undefined;
  /** Throws `missing_model` for an id the config does not list. */
  languageModel(id: string): LanguageModelV3;
  providerOptions(id: string, effort: Effort | null): Record<string, any> | undefined;
}

const DEFAULT_KEY_VARIABLES: Partial<Record<ModelConfig["provider"], string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
};

const ANTHROPIC_THINKING_BUDGET: Record<Effort, number> = { low: 2048, medium: 8192, high: 24576 };

export function createModelRegistry(config: AtriumConfig, env: Record<string, string | undefined> = process.env): ModelRegistry {
  const entries = new Map(config.models.map((model) => [model.id, model]));
  const offlineModel = createOfflineModel();
  const languageModels = new Map<string, LanguageModelV3>();

  function entryOf(id: string): ModelConfig {
    const entry = entries.get(id);
    if (entry === undefined) throw new AtriumError("missing_model", `model ${id} is not configured`);
    return entry;
  }

  function build(entry: ModelConfig): LanguageModelV3 {
    const modelName = entry.model ?? entry.id;
    const apiKey = apiKeyOf(entry, env);
    switch (entry.provider) {
      case "offline":
        return offlineModel;
      case "openai-compatible":
        // The SDK's model for the request and its errors; the stream is read without web streams.
        return new OpenAICompatibleStreamModel(
          providers.openaiCompatible()({ name: entry.id, baseURL: entry.baseURL!, apiKey, includeUsage: true }).chatModel(modelName),
        );
      case "openai": {
        const openai = providers.openai()({ apiKey, baseURL: entry.baseURL });
        const useResponses = entry.api === "responses" || entry.reasoningContext !== undefined;
        return useResponses ? openai.responses(modelName) : openai.chat(modelName);
      }
      case "anthropic":
        return providers.anthropic()({ apiKey, baseURL: entry.baseURL })(modelName);
    }
  }

  return {
    list: () => config.models.map((entry) => describe(entry, env)),
    get: (id) => entries.get(id),
    languageModel(id) {
      const entry = entryOf(id);
      let model = languageModels.get(id);
      if (model === undefined) {
        model = build(entry);
        languageModels.set(id, model);
      }
      return model;
    },
    providerOptions(id, effort) {
      const entry = entries.get(id);
      if (entry === undefined || !entry.effort || effort === null) return undefined;
      switch (entry.provider) {
        case "offline":
          return undefined;
        case "openai":
          return { openai: { reasoningEffort: effort } };
        case "openai-compatible":
          return { [openAICompatibleOptionsKey(entry.id)]: { reasoningEffort: effort } };
        case "anthropic":
          return {
            anthropic: { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGET[effort] } },
          };
      }
    },
  };
}

function describe(entry: ModelConfig, env: Record<string, string | undefined>): ModelInfo {
  return {
    id: entry.id,
    provider: entry.provider,
    contextWindow: entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens,
    effort: entry.effort,
    notice: entry.provider === "offline" ? OFFLINE_MODEL_NOTICE : null,
    available: isAvailable(entry, env),
    attachments: acceptedAttachments(entry),
  };
}

/** Local OpenAI-compatible servers often need no key, so a missing one does not make them unavailable. */
function isAvailable(entry: ModelConfig, env: Record<string, string | undefined>): boolean {
  if (entry.provider === "offline" || entry.provider === "openai-compatible") return true;
  return Boolean(apiKeyOf(entry, env));
}

function apiKeyOf(entry: ModelConfig, env: Record<string, string | undefined>): string | undefined {
  const variable = entry.apiKeyEnv ?? DEFAULT_KEY_VARIABLES[entry.provider];
  return variable === undefined ? undefined : env[variable] || undefined;
}

/** @ai-sdk/openai-compatible reads provider options under its `name` up to the first dot. */
function openAICompatibleOptionsKey(name: string): string {
  return name.split(".")[0].trim();
}
