import type { Item, Turn } from "../events/entities";
import type { SessionState } from "./owner-port";

export type { SessionState, WaitingEntry } from "./owner-port";

export function addItem(session: SessionState, item: Item): void {
  session.items.push(item);
  session.byId.set(item.id, item);
}

export function cloneTurn(turn: Turn): Turn {
  return { ...turn, usage: { ...turn.usage }, error: turn.error ? { ...turn.error } : null };
}
