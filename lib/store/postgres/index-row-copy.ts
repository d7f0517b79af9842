import { sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as getPgTableConfig } from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Pool } from "pg";
import type { IndexDatabase } from "../database";
import * as sqlite from "../schema";
import * as postgres from "./index-tables";
import { itemSearch, titleSearch } from "./search-tables";
import { searchColumns } from "./search-tokens";

/** Every index table, SQLite's and its PostgreSQL twin (the full-text rows are copied after them). */
export const INDEX_TABLES: Array<[SQLiteTable, PgTable]> = [
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
 * table, column for column, then the full-text rows of item_fts and title_fts as search-tables.ts
 * holds them, in one PostgreSQL transaction; answers the rows copied per table.
 * The index is read in rowid batches, so a large one is never held in memory at once: nothing
 * may write it meanwhile (a stopped node's index, or one whose data directory lock is held).
 */
export async function copyIndexRows(from: IndexDatabase, to: Pool, batchRows = BATCH_ROWS): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  await drizzle({ client: to }).transaction(async (transaction) => {
    for (const [source, target] of INDEX_TABLES) {
      const name = getTableConfig(source).name;
      copied[name] = 0;
      for (const batch of rowBatches(from, source, batchRows)) {
        await transaction.insert(target).values(batch);
        copied[name] += batch.length;
      }
    }
    copied.item_fts = await copySearchRows(from, transaction, ITEM_SEARCH, batchRows);
    copied.title_fts = await copySearchRows(from, transaction, TITLE_SEARCH, batchRows);
  });
  return copied;
}

interface SearchCopy {
  /** The full-text rows with what PostgreSQL's row needs: rowid, text, item_id and conversation_id. */
  select: string;
  table: typeof itemSearch | typeof titleSearch;
}

const ITEM_SEARCH: SearchCopy = {
  select: `SELECT f.rowid AS "rowid", f.text AS "text", i.id AS "itemId", f.conversation_id AS "conversationId"
    FROM item_fts f JOIN items i ON i.rowid = f.rowid WHERE f.rowid > ? ORDER BY f.rowid LIMIT ?`,
  table: itemSearch,
};
const TITLE_SEARCH: SearchCopy = {
  select: `SELECT t.rowid AS "rowid", t.title AS "text", c.id AS "conversationId"
    FROM title_fts t JOIN conversations c ON c.rowid = t.rowid WHERE t.rowid > ? ORDER BY t.rowid LIMIT ?`,
  table: titleSearch,
};

/**
 * A full-text table's rows, tokenized as FTS5 tokenized them, each at its rowid's position (the
 * newest matches are the same rows on both backends); the position's sequence then continues
 * after the largest, for the rows written later.
 */
async function copySearchRows(from: IndexDatabase, transaction: Pick<NodePgDatabase, "insert" | "execute">, copy: SearchCopy, batchRows: number): Promise<number> {
  const page = from.$client.prepare(copy.select);
  let copied = 0;
  for (let after = 0; ; ) {
    const rows = page.all(after, batchRows) as Array<{ rowid: number; text: string; itemId?: string; conversationId: string }>;
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.rowid;
    // Tokenized a few megabytes at a time: 500 messages of 1 MiB each would be one 0.5 GB call.
    for (const part of bySize(rows, SEARCH_BATCH_CHARACTERS)) {
      const columns = searchColumns(part.map((row) => row.text));
      const values = part.map(({ rowid, itemId, conversationId }, at) => ({ position: rowid, conversationId, ...(itemId === undefined ? {} : { itemId }), ...columns[at]! }));
      await transaction.insert(copy.table).values(values as Array<typeof itemSearch.$inferInsert>);
    }
    copied += rows.length;
  }
  await transaction.execute(sql`SELECT setval(pg_get_serial_sequence(${getPgTableConfig(copy.table).name}, 'position'), coalesce(max(${copy.table.position}), 0) + 1, false) FROM ${copy.table}`);
  return copied;
}

/** Text characters tokenized in one call while copying the full-text rows. */
const SEARCH_BATCH_CHARACTERS = 4_000_000;

/** The rows cut into runs of at most `characters` of text (a longer row alone in its run). */
function* bySize<Row extends { text: string }>(rows: Row[], characters: number): Generator<Row[]> {
  let run: Row[] = [];
  let size = 0;
  for (const row of rows) {
    if (run.length > 0 && size + row.text.length > characters) {
      yield run;
      run = [];
      size = 0;
    }
    run.push(row);
    size += row.text.length;
  }
  if (run.length > 0) yield run;
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
