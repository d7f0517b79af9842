import path from "node:path";
import { ulid } from "ulid";
import { z } from "zod";
import { readFileIfPresent, writePrivateFileAtomically } from "../store/private-file";

/**
 * "Always allow in this project" (DESIGN §6): a rule lets later calls of one tool — for shell,
 * optionally only commands that start with a prefix — run without asking, in one project (a folder
 * on a machine). Rules live in `$ATRIUM_HOME/approval-rules.json`, never in the project folder: the
 * agent can write there, and must not be able to grant itself permissions.
 */
export const approvalRuleSchema = z.object({
  id: z.string(),
  machine: z.string(),
  path: z.string(),
  tool: z.string(),
  commandPrefix: z.string().nullable(),
  createdAt: z.string(),
});
export type ApprovalRule = z.infer<typeof approvalRuleSchema>;

const fileSchema = z.object({ v: z.literal(1), rules: z.array(approvalRuleSchema) });
const FILE_NAME = "approval-rules.json";

export interface RuleTarget {
  machine: string;
  path: string;
  toolName: string;
  input: unknown;
}

/** Characters that chain, redirect or substitute in a shell: a prefix never vouches for what follows them. */
const SHELL_CONTROL = /[;&|<>`$(){}\n\r\\]/;

/** `npm test` allows `npm test` and `npm test -- --watch`, never `npm testx`, `npm test; rm -rf ~` or `npm test $(curl …)`. */
export function commandMatchesPrefix(command: string, prefix: string): boolean {
  const wanted = prefix.trim();
  const given = command.trim();
  if (wanted === "" || !given.startsWith(wanted)) return false;
  const rest = given.slice(wanted.length);
  if (rest !== "" && !/^\s/.test(rest)) return false;
  return !SHELL_CONTROL.test(given);
}

function shellCommand(input: unknown): string | null {
  const command = (input as { command?: unknown } | null)?.command;
  return typeof command === "string" ? command : null;
}

export function ruleMatches(rule: ApprovalRule, target: RuleTarget): boolean {
  if (rule.machine !== target.machine || rule.path !== path.resolve(target.path) || rule.tool !== target.toolName) return false;
  if (rule.commandPrefix === null) return true;
  const command = shellCommand(target.input);
  return command !== null && commandMatchesPrefix(command, rule.commandPrefix);
}

export type RuleFields = { machine: string; path: string; tool: string; commandPrefix: string | null };

/**
 * Where a data directory's rules are kept: its file on a single node, the cluster's database on a
 * node of a cluster (DESIGN §10c). `match` is synchronous and cheap: it runs at each tool call.
 */
export interface ApprovalRuleBook {
  list(filter?: { machine?: string; path?: string }): ApprovalRule[] | Promise<ApprovalRule[]>;
  match(target: RuleTarget): ApprovalRule | null;
  add(fields: RuleFields, now?: Date): ApprovalRule | Promise<ApprovalRule>;
  remove(id: string): boolean | Promise<boolean>;
}

/** The fields as a rule keeps them: the folder resolved, a blank prefix none. */
export function normalRuleFields(fields: RuleFields): RuleFields {
  return { ...fields, path: path.resolve(fields.path), commandPrefix: fields.commandPrefix?.trim() || null };
}

export function listFilter(rules: ApprovalRule[], filter: { machine?: string; path?: string }): ApprovalRule[] {
  const wantedPath = filter.path === undefined ? undefined : path.resolve(filter.path);
  return rules.filter((rule) => (filter.machine === undefined || rule.machine === filter.machine) && (wantedPath === undefined || rule.path === wantedPath));
}

/** On globalThis, as the Runtime is (lib/engine/runtime-registry): Next bundles routes apart from server.ts. */
const BOOKS_KEY = Symbol.for("atrium.approvalRuleBooks");
type Registry = { [BOOKS_KEY]?: Map<string, ApprovalRuleBook> };

function books(): Map<string, ApprovalRuleBook> {
  const registry = globalThis as Registry;
  return (registry[BOOKS_KEY] ??= new Map());
}

/** A node of a cluster keeps its data directory's rules elsewhere (null: back to the file). */
export function useApprovalRuleBook(home: string, book: ApprovalRuleBook | null): void {
  if (book) books().set(path.resolve(home), book);
  else books().delete(path.resolve(home));
}

/** The rules of the data directory at `home`: the cluster's when its node registered them, else its file. */
export function approvalRulesOf(home: string): ApprovalRuleBook {
  return books().get(path.resolve(home)) ?? new ApprovalRules(home);
}

/** The rules file of one data directory; read on every use (it is small), written whole through a rename. */
export class ApprovalRules implements ApprovalRuleBook {
  private readonly filePath: string;

  constructor(home: string) {
    this.filePath = path.join(home, FILE_NAME);
  }

  list(filter: { machine?: string; path?: string } = {}): ApprovalRule[] {
    return listFilter(this.read(), filter);
  }

  match(target: RuleTarget): ApprovalRule | null {
    return this.read().find((rule) => ruleMatches(rule, target)) ?? null;
  }

  /** Adds a rule; the same rule asked for twice (a retried request) is kept once. */
  add(fields: RuleFields, now = new Date()): ApprovalRule {
    const rules = this.read();
    const wanted = normalRuleFields(fields);
    const existing = rules.find((rule) => rule.machine === wanted.machine && rule.path === wanted.path && rule.tool === wanted.tool && rule.commandPrefix === wanted.commandPrefix);
    if (existing) return existing;
    const rule: ApprovalRule = { id: ulid(now.getTime()), ...wanted, createdAt: now.toISOString() };
    this.write([...rules, rule]);
    return rule;
  }

  remove(id: string): boolean {
    const rules = this.read();
    const kept = rules.filter((rule) => rule.id !== id);
    if (kept.length === rules.length) return false;
    this.write(kept);
    return true;
  }

  private read(): ApprovalRule[] {
    const text = readFileIfPresent(this.filePath);
    if (text === null) return [];
    // A file that does not parse allows nothing: every call asks again, as before any rule.
    const parsed = fileSchema.safeParse(safeJson(text));
    return parsed.success ? parsed.data.rules : [];
  }

  private write(rules: ApprovalRule[]): void {
    writePrivateFileAtomically(this.filePath, `${JSON.stringify({ v: 1, rules }, null, 2)}\n`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
