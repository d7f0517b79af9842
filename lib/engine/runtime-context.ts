import type { OwnerContext } from "./engine-owner";
import type { AgentCatalog } from "../agents/agent-catalog";
import { Checkpoints, type CheckpointLedger } from "../checkpoints/checkpoints";
import type { AtriumConfig } from "../config/config";
import type { RequestExtensions } from "../context/request-extensions";
import type { ModelRegistry } from "../models/registry";
import type { Store } from "../store/store";
import { builtinFileAndShellTools } from "../tools/builtin-tools";
import type { EventBus } from "../events/bus";
import { engineTools } from "../tools/engine-tools";
import type { TimelineNotes } from "./timeline-notes";
import type { MachineRegistry } from "../machines/machine-registry";
import { conversationRow } from "../store/queries";

/** The parts of the Runtime its conversations are handed. */
export interface RuntimeParts {
  store: Store;
  bus: EventBus;
  config: AtriumConfig;
  models: ModelRegistry;
  agents: AgentCatalog;
  extensions: RequestExtensions;
  log: (message: string) => void;
  notes: TimelineNotes;
  machines: MachineRegistry;
}

/** The engine context of the Runtime: what its conversation owners and turns see of it. */
export function buildEngineContext(parts: RuntimeParts): OwnerContext {
  const { agents, extensions, notes, machines } = parts;
  return {
    store: parts.store,
    bus: parts.bus,
    config: parts.config,
    models: parts.models,
    agent: (name, place) => agents.get(name, place),
    agents: (place) => agents.list(place),
    get tools() {
      return [...builtinFileAndShellTools, ...extensions.tools()];
    },
    engineTools,
    extensions,
    log: parts.log,
    checkpoints: new Checkpoints(checkpointLedger(parts.store, machines), parts.config.snapshots.maxFiles),
    noteTimeline: (turnId, entry) => notes.note(turnId, entry),
    machines,
  };
}

/** What checkpoints read of the store, and where a conversation's snapshots live; their records are written by the owners. */
function checkpointLedger(store: Store, machines: MachineRegistry): CheckpointLedger {
  return {
    snapshotsOf: (conversationId) => {
      const machine = conversationRow(store.index, conversationId)?.executor;
      return machine && !machines.isLocal(machine) ? machines.snapshots(machine) : null;
    },
    paths: store.paths,
    readMetadata: (conversationId) => store.readMetadata(conversationId),
    clustered: store.cluster !== null,
  };
}
