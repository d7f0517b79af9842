import type { Item } from "../events/entities";
import { countMatches, findNeedle } from "../store/find-text";
import type { ConversationActor } from "./conversation-actor";

/** GET /api/conversations/:id/find: the places a text occurs in one session's history. */
export interface FindQuery {
  q: string;
  session?: string;
  before?: number;
  limit?: number;
}

/** One item holding matches: `matches` counts them in its text, or in its output for a tool call. */
export interface FindHit {
  itemId: string;
  seq: number;
  kind: Item["kind"];
  matches: number;
}

export interface FindPage {
  /** The newest hits before the cursor, in seq order. */
  hits: FindHit[];
  /** Pass as before for the hits further back; null when these are the oldest. */
  nextCursor: number | null;
  /** Matches in the whole session, not only this page's. */
  total: number;
}

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 2000;

/** What find reads of an item: what the history shows of it in full (tool calls: their output). */
function searchedText(item: Item): string {
  if (item.kind === "user_message" || item.kind === "assistant_message") return item.text ?? "";
  if (item.kind === "tool_call") return item.output ?? "";
  return "";
}

/**
 * Every match of `q` in the session, counted from its items in memory (so a streaming reply's
 * partial text counts too). Hits page backward from the newest: the reader starts at the end.
 */
export function findInSession(actor: ConversationActor, query: FindQuery): FindPage {
  const needle = findNeedle(query.q);
  const session = actor.session(query.session ?? actor.rootSessionId);
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const before = query.before ?? Number.MAX_SAFE_INTEGER;
  const older: FindHit[] = [];
  let total = 0;
  let more = false;
  for (let index = session.items.length - 1; index >= 0 && needle !== ""; index -= 1) {
    const item = session.items[index];
    const matches = countMatches(searchedText(item), needle);
    if (matches === 0) continue;
    total += matches;
    if (item.seq >= before) continue;
    if (older.length < limit) older.push({ itemId: item.id, seq: item.seq, kind: item.kind, matches });
    else more = true;
  }
  const hits = older.reverse();
  return { hits, nextCursor: more ? hits[0].seq : null, total };
}
