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

/** The turns running now, as copies: those whose start is on disk. */
export function runningTurns(sessions: Iterable<SessionState>): Turn[] {
  return [...sessions].flatMap((session) => (session.runner?.onRecord ? [cloneTurn(session.runner.turn)] : []));
}

/** Items of the running turns, partial text included: what a new SSE client starts from. */
export function liveItems(sessions: Iterable<SessionState>): Item[] {
  const items: Item[] = [];
  for (const session of sessions) {
    if (!session.runner?.onRecord) continue;
    const turnId = session.runner.turn.id;
    for (const item of session.items) if (item.turnId === turnId) items.push({ ...item });
  }
  return items;
}
