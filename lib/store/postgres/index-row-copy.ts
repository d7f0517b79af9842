import { drizzle } from "drizzle-orm/node-postgres";
import type { PgTable } from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Pool } from "pg";
import type { IndexDatabase } from "../database";
import * as sqlite from "../schema";
import * as postgres from "./index-tables";

/** Every index table, SQLite's and its PostgreSQL twin (the full-text tables are not index tables here). */
const TABLE_PAIRS: Array<[SQLiteTable, PgTable]> = [
  [sqlite.conversations, postgres.conversations],
  [sqlite.sessions, postgres.sessions],
  [sqlite.turns, postgres.turns],
  [sqlite.items, postgres.items],
  [sqlite.waiting, postgres.waiting],
  [sqlite.approvals, postgres.approvals],
  [sqlite.questions, postgres.questions],
  [sqlite.objectives, postgres.objectives],
  [sqlite.compactions, postgres.compactions],
  [sqlite.requestKeys, postgres.requestKeys],
];

/** Rows per INSERT: the widest table (items, 21 columns) stays far below PostgreSQL's 65,535 parameters. */
const BATCH_ROWS = 500;

/**
 * Copies every row of a SQLite index into the cluster's empty atrium_index_* tables, table by
 * table, column for column, in one PostgreSQL transaction; answers the rows copied per table.
 * The index is read in rowid batches, so a large one is never held in memory at once: nothing
 * may write it meanwhile (a stopped node's index, or one whose data directory lock is held).
 */
export async function copyIndexRows(from: IndexDatabase, to: Pool, batchRows = BATCH_ROWS): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  await drizzle({ client: to }).transaction(async (transaction) => {
    for (const [source, target] of TABLE_PAIRS) {
      const name = getTableConfig(source).name;
      copied[name] = 0;
      for (const batch of rowBatches(from, source, batchRows)) {
        await transaction.insert(target).values(batch);
        copied[name] += batch.length;
      }
    }
  });
  return copied;
}

/** A table's rows in rowid order, `batchRows` at a time, keyed and typed as drizzle's select gives them. */
function* rowBatches(from: IndexDatabase, table: SQLiteTable, batchRows: number): Generator<Array<Record<string, unknown>>> {
  const config = getTableConfig(table);
  const keys = new Map(Object.entries(table).filter(([, value]) => config.columns.includes(value)).map(([key, column]) => [column.name, { key, column }]));
  const page = from.$client.prepare(`SELECT rowid AS "rowid", * FROM "${config.name}" WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  for (let after = 0; ; ) {
    const rows = page.all(after, batchRows) as Array<Record<string, unknown>>;
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.rowid as number;
    yield rows.map((row) => {
      const typed: Record<string, unknown> = {};
      for (const [name, { key, column }] of keys) typed[key] = row[name] === null ? null : column.mapFromDriverValue(row[name]);
      return typed;
    });
  }
}
