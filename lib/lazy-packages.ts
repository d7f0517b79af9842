import { createRequire } from "node:module";

/*
 * Packages a server start does not need, loaded on their first use instead (synchronously, as
 * the providers in lib/models/registry.ts are): the AI SDK is about a tenth of a second of
 * start-up CPU and is first needed by a model call; YAML only by an agent or skill file.
 */
const requireLazily = createRequire(import.meta.url);

let aiSdkModule: typeof import("ai") | null = null;
export function aiSdk(): typeof import("ai") {
  aiSdkModule ??= requireLazily("ai") as typeof import("ai");
  return aiSdkModule;
}

let aiInternalModule: typeof import("ai/internal") | null = null;
/** The SDK's own prompt helpers the model step builds its provider call with. */
export function aiInternal(): typeof import("ai/internal") {
  aiInternalModule ??= requireLazily("ai/internal") as typeof import("ai/internal");
  return aiInternalModule;
}

let yamlModule: typeof import("yaml") | null = null;
export function parseYaml(text: string): unknown {
  yamlModule ??= requireLazily("yaml") as typeof import("yaml");
  return yamlModule.parse(text);
}
