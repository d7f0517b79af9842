import type { AgentDefinition } from "../agents/definitions";
import type { TimelineEntry } from "../events/entities";
import type { Checkpoints } from "../checkpoints/checkpoints";
import type { AtriumConfig } from "../config/config";
import type { ModelRegistry } from "../models/registry";
import type { Store } from "../store/store";
import type { AnyToolDefinition } from "../tools/tool";
import type { RequestExtensions } from "../context/request-extensions";
import type { EventBus } from "../events/bus";
import type { MachinePort, ProjectPlace } from "./machine-port";

/**
 * The store as the conversation's neighbours see it: reads, ids, paths and the conversation's
 * files (an artifact is written by a tool call of the owner's turn). Its record writes are the
 * owner's alone (lib/engine), so no tool, agent, context or checkpoint module can append a
 * conversation's record around the owner.
 */
export type StoreReader = Pick<Store, "paths" | "index" | "now" | "newId" | "log" | "readMetadata" | "readSession" | "files">;

/** What conversation actors and turn runners need from the Runtime; tests can build one directly. */
export interface EngineContext {
  store: StoreReader;
  bus: EventBus;
  config: AtriumConfig;
  models: ModelRegistry;
  /** With a place, that project's `.atrium/agents` are seen too and win by name (issue 14), read on its machine. */
  agent(name: string, place?: ProjectPlace): AgentDefinition | undefined;
  agents(place?: ProjectPlace): AgentDefinition[];
  /** Tools run by lib/tools; engine tools (ask_user, …) are handled by the turn runner. */
  tools: readonly AnyToolDefinition[];
  engineTools: readonly AnyToolDefinition[];
  /** Skills and MCP servers: catalogs and loaded material in each request (issue 14 hook). */
  extensions?: RequestExtensions;
  log(message: string): void;
  /** Snapshots of working directories; absent in engine tests that build a context by hand. */
  checkpoints?: Checkpoints;
  /** Where conversations' machine work runs (DESIGN §10b); absent in engine tests: everything is local. */
  machines?: MachinePort;
  /** Timeline entries only this process saw (model-call retries), merged into GET /api/turns/:id. */
  noteTimeline(turnId: string, entry: TimelineEntry): void;
}
