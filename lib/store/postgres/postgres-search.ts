import { sql, type SQL } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { searchWords, type SearchFilter } from "../conversation-search";
import type { ItemHits } from "../item-search";
import * as tables from "./index-tables";
import { itemSearch, titleSearch } from "./search-tables";
import { LEXEME_LIMIT, lexeme, quoted, searchTokens } from "./search-tokens";

/**
 * A search as FTS5 runs `toMatchExpression`'s query: each word the owner typed is tokenized as the
 * index was, and becomes a phrase whose last token is a prefix ("user_id" is the phrase `user`
 * then `id…`, since FTS5 separates words at "_"); every word must match. A word with no token
 * at all (only characters the tokenizer separates at) is left out, as FTS5 leaves an empty
 * phrase out, and a search of such words only matches nothing.
 */
export interface PostgresSearch {
  /** tsquery input: every token of every word, the last of each (and any cut one) a prefix. */
  query: string;
  /** Substrings of `' ' || tokens` (a space, then the word's tokens), one per word the tsquery alone does not decide exactly. */
  phrases: string[];
  /** The same for every word: what a row with an incomplete vector is matched by. */
  allPhrases: string[];
}

/** The search a query text asks for; null when it has no word FTS5 would match. */
export function postgresSearch(text: string): PostgresSearch | null {
  const words = searchWords(text);
  const phrases = words.length === 0 ? [] : searchTokens(words).filter((tokens) => tokens.length > 0);
  if (phrases.length === 0) return null;
  const terms: string[] = [];
  const exact: string[] = [];
  const all: string[] = [];
  for (const tokens of phrases) {
    tokens.forEach((token, at) => {
      const cut = lexeme(token) !== token;
      terms.push(at === tokens.length - 1 || cut ? `${quoted(lexeme(token))}:*` : quoted(token));
    });
    const pattern = ` ${tokens.join(" ")}`;
    all.push(pattern);
    if (tokens.length > 1 || tokens.some((token) => [...token].length > LEXEME_LIMIT)) exact.push(pattern);
  }
  return { query: terms.join(" & "), phrases: exact, allPhrases: all };
}

type SearchTable = typeof itemSearch | typeof titleSearch;

function matches(table: SearchTable, search: PostgresSearch): SQL {
  // strpos, not LIKE '% …%': the same test, but the planner's guess for it keeps the newest-first
  // walk of position (a LIKE it guessed matches ~nothing made it sort every match: 300+ ms at 200,000 rows).
  const like = (patterns: string[]) => patterns.map((pattern) => sql` AND strpos(' ' || ${table.tokens}, ${pattern}) > 0`);
  const exact = sql.join([sql`${table.vector} @@ ${search.query}::tsquery`, ...like(search.phrases)]);
  const unindexed = sql.join([sql`NOT ${table.complete}`, ...like(search.allPhrases)]);
  return sql`((${exact}) OR (${unindexed}))`;
}

function candidates(db: NodePgDatabase, table: SearchTable, search: PostgresSearch, filter: SearchFilter, limit: number) {
  const c = tables.conversations;
  const conditions = [matches(table, search)];
  if (filter.archived !== "all") conditions.push(sql`${c.archived} = ${filter.archived === "true"}`);
  if (filter.model) conditions.push(sql`${c.model} = ${filter.model}`);
  return db.execute<{ id: string }>(sql`SELECT ${c.id} AS id FROM ${table} JOIN ${c} ON ${c.id} = ${table.conversationId}
    WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${table.position} DESC LIMIT ${limit}`);
}

/**
 * Ids of the conversations owning the newest `limit` matching messages or titles that pass the
 * filter, at most 2 × limit: searchCandidates' answer (conversation-search.ts), newest by
 * `position` where SQLite goes by rowid.
 */
export async function postgresSearchCandidates(db: NodePgDatabase, search: PostgresSearch, filter: SearchFilter, limit: number): Promise<string[]> {
  const [items, titles] = await Promise.all([candidates(db, itemSearch, search, filter, limit), candidates(db, titleSearch, search, filter, limit)]);
  return [...new Set([...items.rows, ...titles.rows].map((row) => row.id))];
}

/**
 * searchSessionItems (item-search.ts) on PostgreSQL: the seqs of a page of one session's messages
 * matching, in seq order, and how many match in all; the same cursors.
 */
export async function postgresSessionHits(
  db: NodePgDatabase,
  scope: { conversationId: string; sessionId: string },
  text: string,
  page: { after: number } | { before: number },
  limit: number,
): Promise<ItemHits> {
  const search = postgresSearch(text);
  if (!search) return { seqs: [], nextCursor: null, total: 0 };
  const i = tables.items;
  const ofSession = sql`${matches(itemSearch, search)} AND ${itemSearch.conversationId} = ${scope.conversationId} AND ${i.sessionId} = ${scope.sessionId}`;
  const from = sql`FROM ${itemSearch} JOIN ${i} ON ${i.id} = ${itemSearch.itemId} WHERE ${ofSession}`;
  const before = "before" in page;
  const [counted, hits] = await Promise.all([
    db.execute<{ total: string }>(sql`SELECT count(*) AS total ${from}`),
    db.execute<{ seq: string }>(
      before
        ? sql`SELECT ${i.seq} AS seq ${from} AND ${i.seq} < ${page.before} ORDER BY ${i.seq} DESC LIMIT ${limit + 1}`
        : sql`SELECT ${i.seq} AS seq ${from} AND ${i.seq} > ${page.after} ORDER BY ${i.seq} ASC LIMIT ${limit + 1}`,
    ),
  ]);
  const rows = hits.rows.map((row) => Number(row.seq));
  const total = Number(counted.rows[0]?.total ?? 0);
  if (before) {
    const seqs = rows.slice(0, limit).reverse();
    return { seqs, nextCursor: rows.length > limit ? seqs[0]! : null, total };
  }
  const seqs = rows.slice(0, limit);
  return { seqs, nextCursor: rows.length > limit ? seqs[seqs.length - 1]! : null, total };
}
