import type Database from "better-sqlite3";
import type { IndexDatabase } from "./database";

/**
 * How many of the most recent matching items, and as many matching titles, a search looks at.
 * A common word matches most of the index; the sidebar wants the newest of them, and ranking
 * every match cost 800 ms at 100,000 conversations. A rarer word has fewer matches than this
 * and its result is exact.
 */
export const SEARCH_CANDIDATE_LIMIT = 2000;

/** The words of a search: runs of letters, digits and underscores; the rest separates them. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Each word becomes a prefix term; quotes keep FTS5 syntax in the owner's text inert. */
export function toMatchExpression(text: string): string | null {
  const words = searchWords(text);
  if (words.length === 0) return null;
  return words.map((word) => `"${word}"*`).join(" ");
}

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A statement prepared once per connection and source text. */
export function statement(client: Database.Database, source: string): Database.Statement {
  let cache = statements.get(client);
  if (!cache) statements.set(client, (cache = new Map()));
  let prepared = cache.get(source);
  if (!prepared) cache.set(source, (prepared = client.prepare(source)));
  return prepared;
}

export interface SearchFilter {
  archived: "false" | "true" | "all";
  model?: string;
}

/*
 * Rowids of item_fts and title_fts mirror those of items and conversations, which grow as
 * records are written, so `ORDER BY rowid DESC LIMIT` is newest first, and FTS5 walks its
 * doclist in that order and stops at the limit instead of collecting every match. The list's
 * filters apply before the limit: a search among archived conversations must not come back
 * empty because the newest matches are all in unarchived ones.
 */
function candidateQuery(filter: SearchFilter): string {
  const conditions = [filter.archived === "all" ? "" : `AND c.archived = ${filter.archived === "true" ? 1 : 0}`, filter.model ? "AND c.model = @model" : ""].join(" ");
  return `SELECT c.id FROM item_fts f JOIN conversations c ON c.id = f.conversation_id
      WHERE item_fts MATCH @match ${conditions} ORDER BY f.rowid DESC LIMIT @limit`;
}

function titleQuery(filter: SearchFilter): string {
  const conditions = [filter.archived === "all" ? "" : `AND c.archived = ${filter.archived === "true" ? 1 : 0}`, filter.model ? "AND c.model = @model" : ""].join(" ");
  return `SELECT c.id FROM title_fts t JOIN conversations c ON c.rowid = t.rowid
      WHERE title_fts MATCH @match ${conditions} ORDER BY t.rowid DESC LIMIT @limit`;
}

/** Ids of the conversations owning the newest `limit` matching items or titles that pass the filter, at most 2 × limit. */
export function searchCandidates(db: IndexDatabase, match: string, filter: SearchFilter, limit = SEARCH_CANDIDATE_LIMIT): string[] {
  const client = db.$client;
  const values = { match, limit, ...(filter.model ? { model: filter.model } : {}) };
  const ids = new Set<string>(statement(client, candidateQuery(filter)).pluck().all(values) as string[]);
  for (const id of statement(client, titleQuery(filter)).pluck().all(values) as string[]) ids.add(id);
  return [...ids];
}

const lastTotals = new WeakMap<Database.Database, { version: string; totals: Map<string, number> }>();
const MAX_CACHED_TOTALS = 64;
const VERSION = `SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version)`;

/**
 * A list total counted once per state of the index: total_changes() moves with every write on
 * this connection and data_version with every commit from another one (a reindex), so a
 * sidebar that pages or polls an idle index does not count 100,000 rows per request.
 */
export function cachedTotal(db: IndexDatabase, key: string, count: () => number): number {
  const client = db.$client;
  const version = statement(client, VERSION).pluck().get() as string;
  let entry = lastTotals.get(client);
  // The key holds a model name from the query string: a bounded map, whatever a client sends.
  if (!entry || entry.version !== version || entry.totals.size >= MAX_CACHED_TOTALS) {
    lastTotals.set(client, (entry = { version, totals: new Map() }));
  }
  let total = entry.totals.get(key);
  if (total === undefined) entry.totals.set(key, (total = count()));
  return total;
}
