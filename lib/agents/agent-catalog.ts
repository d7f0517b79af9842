import fs from "node:fs";
import path from "node:path";
import { loadAgentDefinitions, type AgentDefinition } from "./definitions";

export function projectAgentsFolder(cwd: string): string {
  return path.join(cwd, ".atrium", "agents");
}

/**
 * The agents a conversation sees: `$ATRIUM_HOME/agents`, then its working directory's
 * `.atrium/agents` (DESIGN §4), whose definitions win by name. A project's folder is read
 * again only when one of its files changes.
 */
export class AgentCatalog {
  private home = new Map<string, AgentDefinition>();
  private readonly projects = new Map<string, { stamp: string; agents: Map<string, AgentDefinition> }>();

  constructor(
    private readonly homeFolder: string,
    private readonly log: (message: string) => void,
  ) {}

  reload(log: (message: string) => void = this.log): void {
    const { agents, problems } = loadAgentDefinitions([this.homeFolder]);
    for (const problem of problems) log(`agent definition ${problem.path} skipped: ${problem.message}`);
    this.home = agents;
    this.projects.clear();
  }

  get(name: string, cwd?: string): AgentDefinition | undefined {
    return (cwd ? this.project(cwd)?.get(name) : undefined) ?? this.home.get(name);
  }

  list(cwd?: string): AgentDefinition[] {
    const merged = new Map(this.home);
    if (cwd) for (const [name, agent] of this.project(cwd) ?? []) merged.set(name, agent);
    return [...merged.values()];
  }

  private project(cwd: string): Map<string, AgentDefinition> | null {
    const folder = projectAgentsFolder(cwd);
    const stamp = folderStamp(folder);
    if (stamp === null) return null;
    const cached = this.projects.get(folder);
    if (cached?.stamp === stamp) return cached.agents;
    const { agents, problems } = loadAgentDefinitions([folder]);
    for (const problem of problems) this.log(`agent definition ${problem.path} skipped: ${problem.message}`);
    // The built-in default stays the home one unless the project defines its own file.
    if (!fs.existsSync(path.join(folder, "default.md"))) agents.delete("default");
    this.projects.set(folder, { stamp, agents });
    return agents;
  }
}

function folderStamp(folder: string): string | null {
  try {
    const names = fs.readdirSync(folder).filter((name) => name.endsWith(".md")).sort();
    return names.map((name) => `${name}:${fs.statSync(path.join(folder, name)).mtimeMs}`).join("|");
  } catch {
    return null;
  }
}
