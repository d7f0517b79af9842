import { readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { configSchema, type AtriumConfig } from "./config-schema";

export { OFFLINE_MODEL_ENTRY, configSchema, modelConfigSchema } from "./config-schema";
export type { AtriumConfig, ModelConfig } from "./config-schema";

export const CONFIG_FILE_NAME = "config.json";

/** A config.json that cannot be used; the server refuses to start rather than run half-configured (DESIGN §11). */
export class ConfigError extends Error {
  readonly code = "invalid_config";
  readonly file: string;
  /** Dotted path of the offending field, e.g. `models.1.contextWindow`; null when the file as a whole is bad. */
  readonly field: string | null;

  constructor(file: string, field: string | null, detail: string, options?: { cause?: unknown }) {
    super(field === null ? `${file}: ${detail}` : `${file}: ${field}: ${detail}`, options);
    this.name = "ConfigError";
    this.file = file;
    this.field = field;
  }
}

/**
 * Reads `$ATRIUM_HOME/config.json`; a missing file means every default.
 * `env` is accepted so callers can pass a test environment; no config field is read from it
 * (provider keys are looked up by the model registry).
 */
export function loadConfig(home: string, env: Record<string, string | undefined> = process.env): AtriumConfig {
  const file = path.join(home, CONFIG_FILE_NAME);
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    if (isMissingFile(error)) return parseConfig({}, file);
    throw new ConfigError(file, null, `cannot be read: ${errorMessage(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new ConfigError(file, null, `is not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
  return parseConfig(json, file);
}

/** Validates already-parsed JSON; `file` only names the source in error messages. */
export function parseConfig(json: unknown, file: string = CONFIG_FILE_NAME): AtriumConfig {
  // Without zod's JIT: a config is parsed once or twice in a process, and generating and
  // compiling its object parsers cost ~4 ms of every server start (issue 25). Same result.
  const result = configSchema.safeParse(json, { jitless: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ConfigError(file, describePath(issue), describeIssue(issue), { cause: result.error });
}

function describePath(issue: z.core.$ZodIssue): string | null {
  const segments = issue.path.map(String);
  if (issue.code === "unrecognized_keys") segments.push(issue.keys[0]);
  return segments.length === 0 ? null : segments.join(".");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}`;
    case "unrecognized_keys":
      return "unknown field";
    default:
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
