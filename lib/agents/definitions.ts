import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseYaml } from "../lazy-packages";
import { approvalPolicySchema } from "../tools/approval-policy";

export const DEFAULT_AGENT_INSTRUCTIONS =
  "You are Atrium's default agent: a careful software assistant working in the owner's project directory. " +
  "Use the tools to inspect before you change anything, keep answers short, and say what you did.";

const frontMatterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "lowercase letters, digits, - and _"),
  description: z.string().min(1),
  model: z.string().min(1).optional(),
  tools: z.array(z.string().min(1)).optional(),
  approval: z.record(z.string().min(1), approvalPolicySchema).optional(),
  compactModel: z.string().min(1).optional(),
  /** The skills this agent sees (DESIGN §4); all when absent. */
  skills: z.array(z.string().min(1)).optional(),
});

export interface AgentDefinition {
  name: string;
  description: string;
  model: string | null;
  tools: string[] | null;
  approval: Record<string, z.infer<typeof approvalPolicySchema>>;
  compactModel: string | null;
  skills: string[] | null;
  instructions: string;
  source: string | null;
}

export interface AgentProblem {
  path: string;
  message: string;
}

const DEFAULT_AGENT: AgentDefinition = {
  name: "default",
  description: "General-purpose agent with every built-in tool.",
  model: null,
  tools: null,
  approval: {},
  compactModel: null,
  skills: null,
  instructions: DEFAULT_AGENT_INSTRUCTIONS,
  source: null,
};

/**
 * Reads `agents/*.md` (YAML front matter + instructions) from each folder in order; later
 * folders override earlier ones by name. A bad file is reported with its path and field
 * and skipped; `default` always exists.
 */
export function loadAgentDefinitions(folders: string[]): { agents: Map<string, AgentDefinition>; problems: AgentProblem[] } {
  const agents = new Map<string, AgentDefinition>([["default", DEFAULT_AGENT]]);
  const problems: AgentProblem[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = fs.readdirSync(folder).filter((name) => name.endsWith(".md")).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const filePath = path.join(folder, name);
      const parsed = parseAgentFile(filePath, fs.readFileSync(filePath, "utf8"));
      if ("problem" in parsed) problems.push({ path: filePath, message: parsed.problem });
      else agents.set(parsed.agent.name, parsed.agent);
    }
  }
  return { agents, problems };
}

export function parseAgentFile(filePath: string, text: string): { agent: AgentDefinition } | { problem: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { problem: "missing YAML front matter between --- lines" };
  let data: unknown;
  try {
    data = parseYaml(match[1]);
  } catch (error) {
    return { problem: `front matter is not valid YAML: ${(error as Error).message}` };
  }
  const result = frontMatterSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { problem: `${issue.path.join(".") || "front matter"}: ${issue.message}` };
  }
  const front = result.data;
  return {
    agent: {
      name: front.name,
      description: front.description,
      model: front.model ?? null,
      tools: front.tools ?? null,
      approval: front.approval ?? {},
      compactModel: front.compactModel ?? null,
      skills: front.skills ?? null,
      instructions: match[2].trim() || DEFAULT_AGENT_INSTRUCTIONS,
      source: filePath,
    },
  };
}
