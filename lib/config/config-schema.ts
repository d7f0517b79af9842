import path from "node:path";
import { z } from "zod";
import { isListableEnvName } from "../tools/tool-environment";
import { sandboxModeSchema } from "../sandbox/sandbox-policy";
import { mcpApprovalEntries, mcpServersSchema } from "./mcp-servers-schema";
import { absolutePathSchema } from "./absolute-path";

/** The built-in model's entry, added when config.json does not list one (DESIGN §7). */
export const OFFLINE_MODEL_ENTRY = {
  id: "offline",
  provider: "offline",
  contextWindow: 32000,
  maxOutputTokens: 4000,
  effort: false,
} as const;

const positiveInteger = z.number().int().positive();
const nonNegativeInteger = z.number().int().nonnegative();

export const modelConfigSchema = z
  .strictObject({
    id: z.string().min(1),
    provider: z.enum(["offline", "openai-compatible", "openai", "anthropic"]),
    baseURL: z.url().optional(),
    /** The provider's own name for the model; defaults to `id`. */
    model: z.string().min(1).optional(),
    apiKeyEnv: z.string().min(1).optional(),
    contextWindow: positiveInteger.default(32000),
    maxOutputTokens: positiveInteger.default(4000),
    compactModel: z.string().min(1).optional(),
    effort: z.boolean().default(false),
    reasoningContext: z.enum(["all_turns", "current_turn"]).optional(),
    api: z.enum(["chat", "responses"]).optional(),
    /** Attachment kinds sent to this model as image/file parts; others become a text note. Default by provider. */
    attachments: z.array(z.enum(["image", "pdf"])).optional(),
  })
  .superRefine((model, context) => {
    if (model.provider === "openai-compatible" && model.baseURL === undefined) {
      context.addIssue({ code: "custom", path: ["baseURL"], message: "required for provider openai-compatible" });
    }
    for (const field of ["api", "reasoningContext"] as const) {
      if (model[field] !== undefined && model.provider !== "openai") {
        context.addIssue({ code: "custom", path: [field], message: "only applies to provider openai" });
      }
    }
  });

const DEFAULT_APPROVALS = { shell: "ask", write_file: "ask", edit_file: "ask" } as const;

export const configSchema = z
  .strictObject({
    defaultModel: z.string().min(1).default("offline"),
    /** Writes a short title after a new conversation's first reply (DESIGN §9); none: the first-line title stays. */
    titleModel: z.string().min(1).optional(),
    models: z.array(modelConfigSchema).default([]),
    retry: z
      .strictObject({
        baseDelayMs: nonNegativeInteger.default(1000),
        maxDelayMs: nonNegativeInteger.default(30000),
        maxRetries: nonNegativeInteger.default(10),
      })
      .prefault({}),
    // Listed tools override the defaults one by one, so naming one tool never loosens the others.
    approvals: z
      .record(z.string().min(1), z.enum(["auto", "ask", "deny"]))
      .default({})
      .transform((approvals) => ({ ...DEFAULT_APPROVALS, ...approvals })),
    artifactBytes: positiveInteger.default(16384),
    objectiveSliceLimit: positiveInteger.default(20),
    subagentDepthLimit: nonNegativeInteger.default(3),
    subagentConcurrencyLimit: positiveInteger.default(8),
    // Tool processes start from a clean environment; these names are passed through as well (DESIGN §10).
    shell: z
      .strictObject({
        env: z.array(z.string().refine(isListableEnvName, "must be a variable name, and not one of ATRIUM_*")).default([]),
      })
      .prefault({}),
    // Confinement of shell commands, MCP stdio servers and the file tools (DESIGN §5).
    sandbox: z
      .strictObject({
        mode: sandboxModeSchema.default("workspace-write"),
        network: z.boolean().default(false),
        writable: z.array(absolutePathSchema).default([]),
      })
      .prefault({}),
    webhooks: z
      .strictObject({
        github: z.strictObject({ secret: z.string().min(1).optional() }).optional(),
      })
      .default({}),
    defaultCwd: z
      .string()
      .refine((directory) => path.isAbsolute(directory), "must be an absolute path")
      .default(() => process.cwd()),
    memoryBudgetTokens: nonNegativeInteger.default(2000),
    // Checkpoints of working directories (lib/checkpoints): a bigger cwd has them turned off.
    snapshots: z.strictObject({ maxFiles: positiveInteger.default(20000) }).prefault({}),
    /** DESIGN §10b: `local: false` turns the built-in machine (this host) off. */
    machines: z.strictObject({ local: z.boolean().default(true) }).prefault({}),
    skillCatalogTokens: nonNegativeInteger.default(1500),
    /** Tokens the MCP tools' full schemas may take in a request; beyond it they are offered as a catalog and load_tools. */
    toolSchemaTokens: nonNegativeInteger.default(8000),
    mcpServers: mcpServersSchema,
    /** Behind a reverse proxy that sets them: trust `X-Forwarded-Host`/`-Proto` in the same-origin check (DESIGN §10). */
    trustProxy: z.boolean().default(false),
    /** DESIGN §10c: a PostgreSQL URL puts this node in a cluster (ATRIUM_DATABASE_URL wins). */
    database: z.strictObject({ url: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional() }).prefault({}),
    /** DESIGN §10c: how long a node's lease on a conversation lasts without a renewal. */
    cluster: z.strictObject({ leaseSeconds: z.number().min(1).max(600).default(10) }).prefault({}),
  })
  .superRefine((config, context) => {
    const byId = new Map<string, { id: string; contextWindow: number }>([[OFFLINE_MODEL_ENTRY.id, OFFLINE_MODEL_ENTRY]]);
    const seen = new Set<string>();
    config.models.forEach((model, index) => {
      if (seen.has(model.id)) {
        context.addIssue({ code: "custom", path: ["models", index, "id"], message: `duplicate model id "${model.id}"` });
      }
      if (model.id === OFFLINE_MODEL_ENTRY.id && model.provider !== "offline") {
        context.addIssue({ code: "custom", path: ["models", index, "provider"], message: `the id "offline" is kept for the offline model` });
      }
      seen.add(model.id);
      byId.set(model.id, model);
    });
    if (config.titleModel !== undefined && !byId.has(config.titleModel)) {
      context.addIssue({ code: "custom", path: ["titleModel"], message: `no model has the id "${config.titleModel}"` });
    }
    if (!byId.has(config.defaultModel)) {
      context.addIssue({ code: "custom", path: ["defaultModel"], message: `no model has the id "${config.defaultModel}"` });
    }
    config.models.forEach((model, index) => {
      if (model.compactModel === undefined) return;
      const compactor = byId.get(model.compactModel);
      const fieldPath = ["models", index, "compactModel"];
      if (compactor === undefined) {
        context.addIssue({ code: "custom", path: fieldPath, message: `no model has the id "${model.compactModel}"` });
      } else if (compactor.contextWindow < model.contextWindow) {
        context.addIssue({
          code: "custom",
          path: fieldPath,
          message: `"${compactor.id}" has a context window of ${compactor.contextWindow}, smaller than this model's ${model.contextWindow}`,
        });
      }
    });
  })
  // Added after validation so that issue paths keep the indexes of the file's own models list.
  .transform((config) => ({
    ...config,
    models: withOfflineModel(config.models),
    // A server's policy is a default under the owner's own approvals entries.
    approvals: { ...mcpApprovalEntries(config.mcpServers), ...config.approvals },
  }));

export type AtriumConfig = z.output<typeof configSchema>;
export type ModelConfig = z.output<typeof modelConfigSchema>;

function withOfflineModel(models: ModelConfig[]): ModelConfig[] {
  if (models.some((model) => model.id === OFFLINE_MODEL_ENTRY.id)) return models;
  return [{ ...OFFLINE_MODEL_ENTRY }, ...models];
}
