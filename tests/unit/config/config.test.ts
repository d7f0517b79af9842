import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "@/lib/config/config";

const OFFLINE = { id: "offline", provider: "offline", contextWindow: 32000, maxOutputTokens: 4000, effort: false };

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("fills every default for an empty config", () => {
    expect(parseConfig({})).toEqual({
      defaultModel: "offline",
      models: [OFFLINE],
      retry: { baseDelayMs: 1000, maxDelayMs: 30000, maxRetries: 10 },
      approvals: { shell: "ask", write_file: "ask", edit_file: "ask" },
      artifactBytes: 16384,
      objectiveSliceLimit: 20,
      subagentDepthLimit: 3,
      subagentConcurrencyLimit: 8,
      shell: { env: [] },
      sandbox: { mode: "workspace-write", network: false, writable: [] },
      webhooks: {},
      defaultCwd: process.cwd(),
      memoryBudgetTokens: 2000,
      snapshots: { maxFiles: 20000 },
      machines: { local: true },
      skillCatalogTokens: 1500,
      toolSchemaTokens: 8000,
      mcpServers: {},
      trustProxy: false,
      database: {},
      cluster: { leaseSeconds: 10 },
    });
  });

  it("fills model defaults and keeps given fields", () => {
    const config = parseConfig({
      defaultModel: "local",
      models: [{ id: "local", provider: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b" }],
      retry: { maxRetries: 0 },
      approvals: { shell: "auto", read_file: "deny" },
      webhooks: { github: { secret: "s3cret" } },
      defaultCwd: "/srv/work",
    });
    expect(config.models).toEqual([
      OFFLINE,
      { id: "local", provider: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b", contextWindow: 32000, maxOutputTokens: 4000, effort: false },
    ]);
    expect(config.retry).toEqual({ baseDelayMs: 1000, maxDelayMs: 30000, maxRetries: 0 });
    expect(config.approvals).toEqual({ shell: "auto", write_file: "ask", edit_file: "ask", read_file: "deny" });
    expect(config.webhooks.github?.secret).toBe("s3cret");
    expect(config.defaultCwd).toBe("/srv/work");
  });

  it("keeps a listed offline entry instead of adding another", () => {
    const config = parseConfig({ models: [{ id: "offline", provider: "offline", contextWindow: 2000 }] });
    expect(config.models).toEqual([{ ...OFFLINE, contextWindow: 2000 }]);
  });

  it("names the file and the field of a value of the wrong type", () => {
    const error = errorOf(() =>
      parseConfig({ models: [{ id: "a", provider: "offline" }, { id: "b", provider: "offline", contextWindow: "big" }] }),
    );
    expect(error.message).toBe("config.json: models.1.contextWindow: expected number");
    expect(error.field).toBe("models.1.contextWindow");
  });

  it("names an unknown field", () => {
    expect(() => parseConfig({ defaultModle: "offline" })).toThrow("config.json: defaultModle: unknown field");
    expect(() => parseConfig({ retry: { maxRetrys: 1 } })).toThrow("config.json: retry.maxRetrys: unknown field");
  });

  it("names a provider that does not exist and an approval that is not a choice", () => {
    expect(() => parseConfig({ models: [{ id: "x", provider: "gemini" }] })).toThrow(
      'config.json: models.0.provider: invalid option: expected one of "offline"|"openai-compatible"|"openai"|"anthropic"',
    );
    expect(() => parseConfig({ approvals: { shell: "maybe" } })).toThrow(
      'config.json: approvals.shell: invalid option: expected one of "auto"|"ask"|"deny"',
    );
  });

  it("requires the default model to exist", () => {
    expect(() => parseConfig({ defaultModel: "ghost" })).toThrow('config.json: defaultModel: no model has the id "ghost"');
  });

  it("requires a compact model that exists and has at least the main model's window", () => {
    const models = [
      { id: "big", provider: "offline", contextWindow: 64000, compactModel: "small" },
      { id: "small", provider: "offline", contextWindow: 8000, compactModel: "offline" },
    ];
    expect(() => parseConfig({ models })).toThrow(
      'config.json: models.0.compactModel: "small" has a context window of 8000, smaller than this model\'s 64000',
    );
    expect(() => parseConfig({ models: [{ id: "a", provider: "offline", compactModel: "ghost" }] })).toThrow(
      "config.json: models.0.compactModel: no model has the id",
    );
    expect(parseConfig({ models: [{ id: "a", provider: "offline", contextWindow: 1000, compactModel: "offline" }] }).models).toHaveLength(2);
  });

  it("rejects duplicate ids, an offline id on another provider, and a compatible endpoint without baseURL", () => {
    expect(() => parseConfig({ models: [{ id: "a", provider: "offline" }, { id: "a", provider: "offline" }] })).toThrow(
      'config.json: models.1.id: duplicate model id "a"',
    );
    expect(() => parseConfig({ models: [{ id: "offline", provider: "openai" }] })).toThrow("config.json: models.0.provider:");
    expect(() => parseConfig({ models: [{ id: "x", provider: "openai-compatible" }] })).toThrow(
      "config.json: models.0.baseURL: required for provider openai-compatible",
    );
    expect(() => parseConfig({ models: [{ id: "x", provider: "anthropic", api: "responses" }] })).toThrow(
      "config.json: models.0.api: only applies to provider openai",
    );
  });

  it("rejects a relative default working directory", () => {
    expect(() => parseConfig({ defaultCwd: "work" })).toThrow("config.json: defaultCwd: must be an absolute path");
  });
});

describe("loadConfig", () => {
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), "atrium-config-"));
  });

  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it("uses the defaults when there is no config.json", () => {
    expect(loadConfig(home).models).toEqual([OFFLINE]);
  });

  it("reads config.json from the home directory", () => {
    writeFileSync(path.join(home, "config.json"), JSON.stringify({ artifactBytes: 100, retry: { baseDelayMs: 1 } }));
    const config = loadConfig(home);
    expect(config.artifactBytes).toBe(100);
    expect(config.retry.baseDelayMs).toBe(1);
  });

  it("names the file when it is not JSON", () => {
    const file = path.join(home, "config.json");
    writeFileSync(file, "{ not json");
    const error = errorOf(() => loadConfig(home));
    expect(error.message.startsWith(`${file}: is not valid JSON: `)).toBe(true);
    expect(error.file).toBe(file);
    expect(error.field).toBeNull();
  });

  it("names the file and field when a value is invalid", () => {
    const file = path.join(home, "config.json");
    writeFileSync(file, JSON.stringify({ models: [{ id: "m", provider: "offline", maxOutputTokens: -5 }] }));
    expect(errorOf(() => loadConfig(home)).message).toBe(`${file}: models.0.maxOutputTokens: too small: expected number to be >0`);
  });
});
