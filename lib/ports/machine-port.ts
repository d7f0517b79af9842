import type { AgentDefinition } from "../agents/definitions";
import type { Skill } from "../context/skills";
import type { ToolResult } from "../tools/tool";

/** A tool call sent to a machine: the tool's name, the model's input as is, the conversation's cwd there. */
export interface MachineCall {
  tool: string;
  input: unknown;
  cwd: string;
}

export interface MachineCallIo {
  signal: AbortSignal;
  onOutput(delta: string): void;
}

/**
 * Where a conversation's machine work runs (DESIGN §10b), as tools and the engine see it:
 * `local` runs here; a linked machine runs the same tools on the other end of its link.
 * The registry in lib/machines implements it; this file keeps lib/tools and lib/engine
 * free of that module.
 */
export interface MachinePort {
  /** Whether this machine's tool calls run in this process (the built-in `local`). */
  isLocal(machineId: string): boolean;
  isOnline(machineId: string): boolean;
  /** Its name, for approvals and notices; the id when unknown. */
  nameOf(machineId: string): string;
  /** The cwd a conversation on this machine gets, checked there (missing_cwd, cwd_outside_roots, machine_offline). */
  resolveCwd(machineId: string, cwd: string | undefined): Promise<string>;
  /** What a linked machine last said of its cwd's project files; undefined for `local` or before it answered. */
  projectFiles(machineId: string, cwd: string): LinkedProject | undefined;
  /** Asks the machine for them again (at a turn's start, after a call that may have changed files); never throws. */
  refreshProject(machineId: string, cwd: string): Promise<void>;
  /** Runs one tool call on a linked machine; rejects with a `machine_disconnected` error when the link is lost. */
  run(machineId: string, call: MachineCall, io: MachineCallIo): Promise<ToolResult>;
  /** The id of the machine a config names by id or name; undefined when there is none. */
  machineIdOf(idOrName: string): string | undefined;
  /** Starts an MCP stdio server on a linked machine and relays its stdio; throws `machine_disconnected` when it is offline. */
  openMcp(machineId: string, spec: McpRelaySpec, handlers: McpRelayHandlers): McpRelay;
  /** Called each time a machine's link comes up (its MCP servers are started again). */
  onLinked(listener: (machineId: string) => void): void;
}

/** An MCP stdio server's entry, as the machine that starts it needs it (config `mcpServers`, DESIGN §5). */
export interface McpRelaySpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  envFrom: Record<string, string>;
  cwd?: string;
  sandbox?: "off" | { network?: boolean; writable?: string[] };
}

export interface McpRelayHandlers {
  /** One line of the server's stdout, unparsed: nothing from the link is trusted. */
  onLine(line: string): void;
  onStderr(line: string): void;
  onStarted(sandbox: string): void;
  /** The server is gone; `linkLost` when it was the link that went (the server's fate is then unknown). */
  onExit(reason: string, linkLost: boolean): void;
}

/** The gateway's end of a relayed server: lines to its stdin, and stopping it. */
export interface McpRelay {
  send(line: string): void;
  close(): void;
}

/** Where a conversation's project is: its cwd, on its machine (`local` when absent). */
export interface ProjectPlace {
  cwd: string;
  machine?: string;
}

/** A project as a linked machine read it (DESIGN §4, §10b): AGENTS.md, `.atrium/skills`, `.atrium/agents`. */
export interface LinkedProject {
  agentsFile: string | null;
  skills: Skill[];
  agents: AgentDefinition[];
}

const NOTHING_READ: LinkedProject = { agentsFile: null, skills: [], agents: [] };

/**
 * The project files of a place on a linked machine, or null when the place is this host and
 * its files are read here. Before the machine has answered, it has none: the gateway never
 * reads its own disk at a path that belongs to another computer.
 */
export function linkedProject(machines: MachinePort | undefined, place: ProjectPlace | undefined): LinkedProject | null {
  if (!place?.machine || !machines || machines.isLocal(place.machine)) return null;
  return machines.projectFiles(place.machine, place.cwd) ?? NOTHING_READ;
}

/** The link to a machine was lost (or was never there) while a call needed it. */
export class MachineDisconnectedError extends Error {
  readonly code = "machine_disconnected";
}

/** By shape: Next's bundles may hold another copy of the class. */
export function isMachineDisconnected(error: unknown): error is MachineDisconnectedError {
  return error instanceof Error && (error as { code?: unknown }).code === "machine_disconnected";
}
