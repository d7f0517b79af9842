import fs from "node:fs";
import path from "node:path";
import { linkedProject, type MachinePort, type ProjectPlace } from "../ports/machine-port";
import { loadAgentDefinitions, type AgentDefinition } from "./definitions";

export function projectAgentsFolder(cwd: string): string {
  return path.join(cwd, ".atrium", "agents");
}

/**
 * The agents a conversation sees: `$ATRIUM_HOME/agents`, then its working directory's
 * `.atrium/agents` (DESIGN §4), whose definitions win by name. A project's folder is read
 * again only when one of its files changes; on a linked machine, the machine reads it
 * (DESIGN §10b) and the catalog takes what it last said.
 */
export class AgentCatalog {
  private home = new Map<string, AgentDefinition>();
  private readonly projects = new Map<string, { stamp: string; agents: Map<string, AgentDefinition> }>();

  constructor(
    private readonly homeFolder: string,
    private readonly log: (message: string) => void,
    private readonly machines?: MachinePort,
  ) {}

  reload(log: (message: string) => void = this.log): void {
    const { agents, problems } = loadAgentDefinitions([this.homeFolder]);
    for (const problem of problems) log(`agent definition ${problem.path} skipped: ${problem.message}`);
    this.home = agents;
    this.projects.clear();
  }

  get(name: string, place?: ProjectPlace): AgentDefinition | undefined {
    return this.projectAgents(place)?.get(name) ?? this.home.get(name);
  }

  list(place?: ProjectPlace): AgentDefinition[] {
    const merged = new Map(this.home);
    for (const [name, agent] of this.projectAgents(place) ?? []) merged.set(name, agent);
    return [...merged.values()];
  }

  private projectAgents(place: ProjectPlace | undefined): Map<string, AgentDefinition> | null {
    if (!place) return null;
    const linked = linkedProject(this.machines, place);
    if (linked) return new Map(linked.agents.map((agent) => [agent.name, agent]));
    return this.project(place.cwd);
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
  // Most projects have no agents folder: a stat that does not throw answers that more cheaply than a readdir's ENOENT.
  if (!fs.statSync(folder, { throwIfNoEntry: false })) return null;
  try {
    const names = fs.readdirSync(folder).filter((name) => name.endsWith(".md")).sort();
    return names.map((name) => `${name}:${fs.statSync(path.join(folder, name)).mtimeMs}`).join("|");
  } catch {
    return null;
  }
}
