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

/** The rules file of one data directory; read on every use (it is small), written whole through a rename. */
export class ApprovalRules {
  private readonly filePath: string;

  constructor(home: string) {
    this.filePath = path.join(home, FILE_NAME);
  }

  list(filter: { machine?: string; path?: string } = {}): ApprovalRule[] {
    const wantedPath = filter.path === undefined ? undefined : path.resolve(filter.path);
    return this.read().filter((rule) => (filter.machine === undefined || rule.machine === filter.machine) && (wantedPath === undefined || rule.path === wantedPath));
  }

  match(target: RuleTarget): ApprovalRule | null {
    return this.read().find((rule) => ruleMatches(rule, target)) ?? null;
  }

  /** Adds a rule; the same rule asked for twice (a retried request) is kept once. */
  add(fields: { machine: string; path: string; tool: string; commandPrefix: string | null }, now = new Date()): ApprovalRule {
    const rules = this.read();
    const wanted = { ...fields, path: path.resolve(fields.path), commandPrefix: fields.commandPrefix?.trim() || null };
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
