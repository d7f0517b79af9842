import type { IndexDatabase } from "./database";
import { statement, toMatchExpression } from "./conversation-search";

/*
 * The messages of one session whose text matches, through the same full-text rows the sidebar
 * searches (item_fts: user and assistant messages, rowid = the item's rowid). The conversation
 * column is unindexed: FTS5 walks the word's doclist and the join keeps this session's rows.
 */
const HITS = `SELECT i.seq FROM item_fts f JOIN items i ON i.rowid = f.rowid
  WHERE item_fts MATCH @match AND f.conversation_id = @conversationId AND i.session_id = @sessionId AND i.seq > @after
  ORDER BY i.seq LIMIT @limit`;
const HITS_BEFORE = `SELECT i.seq FROM item_fts f JOIN items i ON i.rowid = f.rowid
  WHERE item_fts MATCH @match AND f.conversation_id = @conversationId AND i.session_id = @sessionId AND i.seq < @before
  ORDER BY i.seq DESC LIMIT @limit`;
const COUNT = `SELECT count(*) FROM item_fts f JOIN items i ON i.rowid = f.rowid
  WHERE item_fts MATCH @match AND f.conversation_id = @conversationId AND i.session_id = @sessionId`;

export interface ItemHits {
  seqs: number[];
  nextCursor: number | null;
  total: number;
}

/**
 * The seqs of a page of the session's messages matching `text` (each word a prefix), in seq
 * order, and how many match in all. With `after` the page follows that seq and nextCursor
 * continues forward; with `before` it is the last page before it and nextCursor goes further back.
 */
export function searchSessionItems(
  db: IndexDatabase,
  conversationId: string,
  sessionId: string,
  text: string,
  page: { after: number } | { before: number },
  limit: number,
): ItemHits {
  const match = toMatchExpression(text);
  if (!match) return { seqs: [], nextCursor: null, total: 0 };
  const client = db.$client;
  const values = { match, conversationId, sessionId };
  const total = statement(client, COUNT).pluck().get(values) as number;
  if ("before" in page) {
    const rows = statement(client, HITS_BEFORE).pluck().all({ ...values, before: page.before, limit: limit + 1 }) as number[];
    const seqs = rows.slice(0, limit).reverse();
    return { seqs, nextCursor: rows.length > limit ? seqs[0] : null, total };
  }
  const rows = statement(client, HITS).pluck().all({ ...values, after: page.after, limit: limit + 1 }) as number[];
  const seqs = rows.slice(0, limit);
  return { seqs, nextCursor: rows.length > limit ? seqs[seqs.length - 1] : null, total };
}
