import type { AtriumConfig } from "../config/config";
import type { Item } from "../events/entities";
import { createLoadSkillTool } from "../tools/load-skill";
import { LOAD_TOOLS_TOOL_NAME, createLoadToolsTool } from "../tools/load-tools";
import { McpManager, type McpServerOverview } from "../tools/mcp-manager";
import type { AnyToolDefinition } from "../tools/tool";
import { toolSandbox } from "../sandbox/tool-sandbox";
import { offerTools } from "../tools/tool-budget";
import { compactedSkillLoads, loadedSkillsSection } from "./loaded-skills";
import { skillCatalog } from "./skill-catalog";
import { LOAD_SKILL_TOOL_NAME } from "./skill-names";
import { discoverSkills, skillsForAgent, type Skill } from "./skills";
import type { TokenCounter } from "./tokens";
import { linkedProject, type MachinePort, type ProjectPlace } from "../ports/machine-port";

export interface FrameInfo {
  /** The session agent's `skills:` list, or null for all. */
  allowedSkills: readonly string[] | null;
  /** The conversation's project: its skills are read on its machine. */
  place: ProjectPlace;
  /** Every item of the session, and the part the model sees after compaction. */
  items: readonly Item[];
  kept: readonly Item[];
  input: string;
  counter: TokenCounter;
}

export interface Frame {
  system: string;
  tools: readonly AnyToolDefinition[];
  catalogTokens: { skills: number; tools: number };
}

export interface RequestExtensionsOptions {
  home: string;
  config: AtriumConfig;
  env: Readonly<Record<string, string | undefined>>;
  log(message: string): void;
  /** `skills:` of an agent by name (null: all skills). */
  allowedSkills(agent: string | undefined, place: ProjectPlace): readonly string[] | null;
  /** Where linked machines' project files come from (DESIGN §10b); absent: every project is on this host. */
  machines?: MachinePort;
  mcpRetryDelayMs?(attempt: number): number;
}

/**
 * What skills and MCP servers add to each request (DESIGN §4, §5): the skill catalog, skills
 * loaded before a compaction, the MCP tools or their catalog, and the tools that load them.
 */
export class RequestExtensions {
  readonly mcp: McpManager;
  private readonly ownTools: AnyToolDefinition[];

  constructor(private readonly options: RequestExtensionsOptions) {
    this.mcp = new McpManager(options.config.mcpServers, {
      env: options.env,
      log: options.log,
      retryDelayMs: options.mcpRetryDelayMs,
      sandbox: toolSandbox(options.config.sandbox, options.home),
      machines: options.machines,
    });
    this.ownTools = [
      createLoadSkillTool({ skills: (place) => this.skills(place), allowedSkills: options.allowedSkills }),
      createLoadToolsTool((machine) => this.mcp.tools().filter((tool) => this.mcp.offeredOn(tool.name, machine))),
    ];
  }

  start(): Promise<void> {
    return this.mcp.start();
  }

  stop(): Promise<void> {
    return this.mcp.stop();
  }

  /** Tools run by lib/tools beside the built-ins. */
  tools(): AnyToolDefinition[] {
    return [...this.ownTools, ...this.mcp.tools()];
  }

  /** The skills of a project: the home folder's, then the project's, read on its machine. */
  skills(place: ProjectPlace): Skill[] {
    return discoverSkills(this.options.home, place.cwd, this.options.log, linkedProject(this.options.machines, place)?.skills).skills;
  }

  servers(): McpServerOverview[] {
    return this.mcp.overview();
  }

  frame(base: { system: string; tools: readonly AnyToolDefinition[] }, info: FrameInfo): Frame {
    // An agent whose tools: list leaves out load_skill gets no catalog it could not act on.
    const canLoadSkills = base.tools.some((tool) => tool.name === LOAD_SKILL_TOOL_NAME);
    const skills = canLoadSkills ? skillsForAgent(this.skills(info.place), info.allowedSkills) : [];
    const catalog = skillCatalog(skills, info.input, this.options.config.skillCatalogTokens, info.counter);
    const loadedSkills = loadedSkillsSection(compactedSkillLoads(info.items, info.kept));
    const tools = skills.length ? base.tools : base.tools.filter((tool) => tool.name !== LOAD_SKILL_TOOL_NAME);
    const offered = offerTools(tools, loadedToolNames(info.items), this.options.config.toolSchemaTokens, info.counter);
    return {
      system: [base.system, catalog.text, loadedSkills, offered.catalog].filter(Boolean).join("\n\n"),
      tools: offered.tools,
      catalogTokens: { skills: catalog.tokens, tools: offered.catalogTokens },
    };
  }
}

function loadedToolNames(items: readonly Item[]): Set<string> {
  const names = new Set<string>();
  for (const item of items) {
    if (item.kind !== "tool_call" || item.toolName !== LOAD_TOOLS_TOOL_NAME || item.status !== "completed") continue;
    const input = item.input as { names?: unknown } | undefined;
    if (Array.isArray(input?.names)) for (const name of input.names) if (typeof name === "string") names.add(name);
  }
  return names;
}
