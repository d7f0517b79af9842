import type { EngineContext } from "../ports/engine-context";
import type { ConversationOwner, ItemCompletion, ItemFields } from "../ports/owner-port";
import type { Item } from "../events/entities";
import type { SessionState } from "../ports/session-state";
import type { Store } from "../store/store";
import type { OwnerRecords } from "./owner-records";
import type { TurnReport } from "./turn-reports";
import type { MachineRegistry } from "../machines/machine-registry";

/**
 * The engine's side of the port: the owner and its context with the store's writes. Only
 * lib/engine holds these types; the neighbours get ConversationOwner, whose store only reads.
 */
export interface OwnerContext extends Omit<EngineContext, "store" | "machines"> {
  store: Store;
  /** The Runtime's machines: the port plus the registry's own API (list, add, revoke, links). */
  machines?: MachineRegistry;
}

export interface EngineOwner extends Omit<ConversationOwner, "context"> {
  readonly context: OwnerContext;
  /** The owner's metadata log: every metadata record it writes, and the state they fold to. */
  readonly records: OwnerRecords;
  /** A fact the running turn's loop reports (a delta, a model call's usage, a park): applied at once, writes nothing. */
  report(report: TurnReport): void;
  /** Runs a section in the owner's queue: for the engine's own command implementations only. */
  locked<T>(section: () => Promise<T> | T): Promise<T>;
  /** Inside a command's implementation: an item written without queueing again (createItem is the command). */
  writeItem(session: SessionState, fields: ItemFields, flushed?: (item: Item) => void): Promise<Item>;
  /** Inside a command's implementation: an item completed without queueing again. */
  finishItem(session: SessionState, item: Item, fields: ItemCompletion): Promise<void>;
  /** The running turn's 2-second progress checkpoint, as a command of the owner. */
  checkpointTurn(sessionId: string, turnId: string): Promise<void>;
  /** Counts work running outside the queue (a title's model call) as the owner's, so it is not evicted meanwhile. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Turns whose `turn.started` the disk refused: the owner applies no command written for them (applyCommand, owner-commands.ts). */
  readonly unrecordedTurns: Set<string>;
}
