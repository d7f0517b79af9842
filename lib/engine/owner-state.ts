import type { EngineOwner } from "./engine-owner";
import type { Inbox } from "./inbox";

/** The owner's private state the commands change, beyond what the port shows (lib/engine only). */
export interface OwnerState extends EngineOwner {
  readonly inbox: Inbox;
  holdWaiting: boolean;
  manualCompaction: AbortController | null;
  restoring: boolean;
  deleted: boolean;
  stopped: boolean;
  hasOpenTurn(): boolean;
}
