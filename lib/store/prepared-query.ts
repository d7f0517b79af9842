import type { IndexDatabase } from "./database";

export type Prepared = { get(values?: Record<string, unknown>): unknown; all(values?: Record<string, unknown>): unknown[] };
const preparedQueries = new WeakMap<IndexDatabase, Map<string, Prepared>>();

/**
 * A query built and prepared once per database, run with `sql.placeholder` values: the turn loop
 * reads the same few rows on every model call, and drizzle renders the SQL and better-sqlite3
 * prepares it again on each unprepared call, which cost far more than the lookup.
 */
export function prepared<Query extends Prepared>(db: IndexDatabase, key: string, build: () => Query): Query {
  let queries = preparedQueries.get(db);
  if (!queries) {
    queries = new Map();
    preparedQueries.set(db, queries);
  }
  let query = queries.get(key);
  if (!query) {
    query = build();
    queries.set(key, query);
  }
  return query as Query;
}

