import type { CompactionPoint } from "../context/compaction";
import type { Item, Turn } from "../events/entities";
import type { AttachmentRef } from "../store/records";
import type { TurnRunner } from "./turn-runner";

export interface SessionState {
  id: string;
  agent: string;
  model: string;
  parentSessionId: string | null;
  depth: number;
  createdAt: string;
  items: Item[];
  byId: Map<string, Item>;
  runner: TurnRunner | null;
  /** Input tokens the provider reported for this session's last request, for the usage figure. */
  lastReportedInput: number | null;
  /** How many items that request covered; later ones are estimated on top of the report. */
  reportedItemCount: number;
  /** The latest compaction: what the model sees starts from its summary. */
  compaction: CompactionPoint | null;
  /** For OpenAI reasoning models: the reasoning context the provider last reported applying. */
  reasoningContextApplied: "all_turns" | "current_turn" | null;
}

export interface WaitingEntry {
  id: string;
  sessionId: string;
  text: string;
  mode: "steer" | "queue" | "jump";
  origin: string;
  fromSessionId?: string;
  attachments?: AttachmentRef[];
  createdAt: string;
  position: number;
}

export function addItem(session: SessionState, item: Item): void {
  session.items.push(item);
  session.byId.set(item.id, item);
}

export function cloneTurn(turn: Turn): Turn {
  return { ...turn, usage: { ...turn.usage }, error: turn.error ? { ...turn.error } : null };
}
