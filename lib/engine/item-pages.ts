import { badRequest } from "../errors";
import type { Item } from "../events/entities";
import { searchSessionItems } from "../store/item-search";
import type { Store } from "../store/store";
import type { ConversationActor } from "./conversation-actor";

/** GET /api/conversations/:id/items: one way of paging at a time (after is the default). */
export interface ItemsQuery {
  session?: string;
  after?: number;
  limit?: number;
  before?: number;
  tail?: "true";
  around?: string;
  q?: string;
}

export interface ItemsPage {
  items: Item[];
  nextCursor: number | null;
  /** With `around`: pass as `before` for the items further back, null at the start. */
  previousCursor?: number | null;
  /** With `q`: how many messages match in all. */
  total?: number;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/** The index of the first item whose seq is ≥ seq (items are in seq order). */
function lowerBound(items: Item[], seq: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (items[middle].seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

const copies = (items: Item[]) => items.map((item) => ({ ...item }));

/**
 * A page of a session's history, from memory so partial text of a streaming item is included.
 * `after` pages forward (nextCursor: pass as after). `before` and `tail` page backward: the
 * items just before the cursor (or the latest), still in seq order, and nextCursor to pass as
 * before for the page further back. `around` is a window centred on one item, with cursors
 * both ways. `q` keeps the messages whose text matches (searched in the index), paged the same ways.
 */
export function pageOfItems(store: Store, actor: ConversationActor, query: ItemsQuery): ItemsPage {
  const modes = [query.after !== undefined, query.before !== undefined, query.tail !== undefined, query.around !== undefined].filter(Boolean).length;
  if (modes > 1 || (query.q !== undefined && query.around !== undefined)) {
    throw badRequest("give at most one of after, before, tail and around (q pages with after, before or tail)");
  }
  const session = actor.session(query.session ?? actor.rootSessionId);
  const all = session.items;
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  if (query.q !== undefined) {
    const backward = query.before !== undefined || query.tail !== undefined;
    const page = backward ? { before: query.before ?? Number.MAX_SAFE_INTEGER } : { after: query.after ?? 0 };
    const hits = searchSessionItems(store.index, actor.id, session.id, query.q, page, limit);
    const items = hits.seqs.flatMap((seq) => {
      const hit = all[lowerBound(all, seq)];
      return hit?.seq === seq ? [hit] : [];
    });
    return { items: copies(items), nextCursor: hits.nextCursor, total: hits.total };
  }
  if (query.before !== undefined || query.tail !== undefined) {
    const end = query.before !== undefined ? lowerBound(all, query.before) : all.length;
    const start = Math.max(0, end - limit);
    const items = copies(all.slice(start, end));
    return { items, nextCursor: start > 0 ? items[0].seq : null };
  }
  if (query.around !== undefined) {
    const index = all.findIndex((item) => item.id === query.around);
    if (index === -1) throw badRequest(`item ${query.around} is not in this session`);
    const start = Math.max(0, Math.min(index - Math.floor(limit / 2), all.length - limit));
    const end = Math.min(all.length, start + limit);
    const items = copies(all.slice(start, end));
    return { items, nextCursor: end < all.length ? items[items.length - 1].seq : null, previousCursor: start > 0 ? items[0].seq : null };
  }
  const start = lowerBound(all, (query.after ?? 0) + 1);
  const page = all.slice(start, start + limit + 1);
  const items = copies(page.slice(0, limit));
  return { items, nextCursor: page.length > limit ? items[items.length - 1].seq : null };
}
