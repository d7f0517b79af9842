import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import type pg from "pg";
import type { IndexDatabase } from "@/lib/store/database";
import { INDEX_TABLES } from "@/lib/store/postgres/index-row-copy";

/** Every index table's rows, each as JSON, sorted: two dumps are equal when the tables hold the same rows. */
export type IndexTablesDump = Record<string, string[]>;

/** Keeps a row when it belongs to one of `conversationIds` (by conversation_id, a conversation's id, a request key's scope or its response); all rows without. */
function belongsTo(conversationIds?: string[]) {
  if (!conversationIds) return () => true;
  return (row: Record<string, unknown>) =>
    conversationIds.some((id) => row.conversationId === id || row.id === id || row.scope === id || (row.scope === "" && String(row.response).includes(id)));
}

const dumped = (rows: Array<Record<string, unknown>>, keep: (row: Record<string, unknown>) => boolean) => rows.filter(keep).map((row) => JSON.stringify(row)).sort();

/** A node's SQLite index tables, typed as drizzle reads them. */
export async function sqliteIndexDump(index: IndexDatabase, conversationIds?: string[]): Promise<IndexTablesDump> {
  const dump: IndexTablesDump = {};
  for (const [table] of INDEX_TABLES) dump[getTableConfig(table).name] = dumped(await index.select().from(table), belongsTo(conversationIds));
  return dump;
}

/** A cluster's atrium_index_* tables, typed as drizzle reads them (text back through databaseText). */
export async function postgresIndexDump(pool: pg.Pool, conversationIds?: string[]): Promise<IndexTablesDump> {
  const db = drizzle({ client: pool });
  const dump: IndexTablesDump = {};
  for (const [sqlite, postgres] of INDEX_TABLES) dump[getTableConfig(sqlite).name] = dumped(await db.select().from(postgres), belongsTo(conversationIds));
  return dump;
}
