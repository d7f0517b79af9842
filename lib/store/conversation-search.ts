import type Database from "better-sqlite3";
import type { IndexDatabase } from "./database";

/**
 * How many of the most recent matching items, and as many matching titles, a search looks at.
 * A common word matches most of the index; the sidebar wants the newest of them, and ranking
 * every match cost 800 ms at 100,000 conversations. A rarer word has fewer matches than this
 * and its result is exact.
 */
export const SEARCH_CANDIDATE_LIMIT = 2000;

/** Each word becomes a prefix term; quotes keep FTS5 syntax in the owner's text inert. */
export function toMatchExpression(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.map((word) => `"${word}"*`).join(" ");
}

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function statement(client: Database.Database, source: string): Database.Statement {
  let cache = statements.get(client);
  if (!cache) statements.set(client, (cache = new Map()));
  let prepared = cache.get(source);
  if (!prepared) cache.set(source, (prepared = client.prepare(source)));
  return prepared;
}

/*
 * Rowids of item_fts and title_fts mirror those of items and conversations, which grow as
 * records are written, so `ORDER BY rowid DESC LIMIT` is newest first, and FTS5 walks its
 * doclist in that order and stops at the limit instead of collecting every match.
 */
const ITEM_HITS = `SELECT conversation_id FROM item_fts WHERE item_fts MATCH ? ORDER BY rowid DESC LIMIT ?`;
const TITLE_HITS = `SELECT id FROM conversations WHERE rowid IN
  (SELECT rowid FROM title_fts WHERE title_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`;

/** Ids of the conversations owning the newest `limit` matching items or titles, at most 2 × limit. */
export function searchCandidates(db: IndexDatabase, match: string, limit = SEARCH_CANDIDATE_LIMIT): string[] {
  const client = db.$client;
  const ids = new Set<string>(statement(client, ITEM_HITS).pluck().all(match, limit) as string[]);
  for (const id of statement(client, TITLE_HITS).pluck().all(match, limit) as string[]) ids.add(id);
  return [...ids];
}

const lastTotals = new WeakMap<Database.Database, { version: string; totals: Map<string, number> }>();
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
  if (!entry || entry.version !== version) lastTotals.set(client, (entry = { version, totals: new Map() }));
  let total = entry.totals.get(key);
  if (total === undefined) entry.totals.set(key, (total = count()));
  return total;
}
