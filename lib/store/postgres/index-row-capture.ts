import type Database from "better-sqlite3";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { INDEX_TABLES } from "./index-row-copy";

/** One index table's rows a piece of work changed: the rows as they are now, and the keys of the rows now gone. */
export interface TableChanges {
  /** The table's name (SQLite's; PostgreSQL's is PG_INDEX_PREFIX + it). */
  table: string;
  /** Whole rows, keyed by column name, booleans as booleans. */
  rows: Array<Record<string, unknown>>;
  /** Primary keys, keyed by column name. */
  gone: Array<Record<string, unknown>>;
}

interface CapturedTable {
  name: string;
  present: Database.Statement;
  gone: Database.Statement;
  /** Every row of one conversation (its creation's request key included). */
  ofConversation: Database.Statement;
  /** Each column's value as drizzle types it (a SQLite boolean is stored as 0 or 1). */
  columns: SQLiteColumn[];
}

/**
 * Which rows of a node's SQLite index a piece of work changed (issue 24, DESIGN §10c): TEMP
 * triggers on the ten index tables (on this connection only, gone when it closes) note the
 * primary key of every row inserted, updated or deleted while `capture` runs; the rows are then
 * read back as they are, or named as gone. So the owner's IndexWriter stays the one derivation of
 * the index, and what it changed can be written into the cluster's atrium_index_* tables.
 * Outside `capture` the triggers note nothing (their WHEN finds no row in atrium_capture_on).
 * Only a node of a cluster installs them: a single server's index has no such triggers.
 */
export class IndexRowCapture {
  private readonly tables: CapturedTable[];
  private readonly start: Database.Statement;
  private readonly stop: Database.Statement;
  private readonly clear: Database.Statement;
  private readonly touched: Database.Statement;

  constructor(private readonly client: Database.Database) {
    client.exec(`
      CREATE TEMP TABLE IF NOT EXISTS atrium_capture_on (capturing INTEGER);
      CREATE TEMP TABLE IF NOT EXISTS atrium_captured (tbl TEXT NOT NULL, k1 TEXT NOT NULL, k2 TEXT NOT NULL);
    `);
    this.tables = INDEX_TABLES.map(([table]) => this.install(table));
    this.start = client.prepare("INSERT INTO temp.atrium_capture_on VALUES (1)");
    this.stop = client.prepare("DELETE FROM temp.atrium_capture_on");
    this.clear = client.prepare("DELETE FROM temp.atrium_captured");
    this.touched = client.prepare("SELECT DISTINCT tbl FROM temp.atrium_captured").pluck();
  }

  /**
   * Runs `work` (synchronous: nothing else writes the index meanwhile) and answers what it changed
   * in each table it touched. Call inside the index transaction that does the work.
   */
  capture(work: () => void): TableChanges[] {
    this.clear.run();
    this.start.run();
    try {
      work();
    } finally {
      this.stop.run();
    }
    const changes: TableChanges[] = [];
    const touched = new Set(this.touched.all() as string[]);
    for (const table of this.tables) {
      if (!touched.has(table.name)) continue;
      const rows = (table.present.all(table.name) as Array<Record<string, unknown>>).map((row) => typed(row, table.columns));
      const gone = (table.gone.all(table.name) as Array<Record<string, unknown>>).map((row) => typed(row, table.columns));
      if (rows.length > 0 || gone.length > 0) changes.push({ table: table.name, rows, gone });
    }
    this.clear.run();
    return changes;
  }

  /** Every row of one conversation, table by table, as `capture` answers them (nothing gone). */
  conversationRows(conversationId: string): TableChanges[] {
    return this.tables
      .map((table) => ({ table: table.name, rows: (table.ofConversation.all({ id: conversationId }) as Array<Record<string, unknown>>).map((row) => typed(row, table.columns)), gone: [] }))
      .filter((change) => change.rows.length > 0);
  }

  private install(table: SQLiteTable): CapturedTable {
    const config = getTableConfig(table);
    const keys = primaryKeyOf(table);
    const name = config.name;
    const quoted = (column: string) => `"${column}"`;
    // A single key's second part is '' (the keys are NOT NULL text in every index table).
    const noted = (row: "NEW" | "OLD") => `${row}.${quoted(keys[0]!)}, ${keys[1] ? `${row}.${quoted(keys[1])}` : "''"}`;
    const note = (row: "NEW" | "OLD") => `INSERT INTO atrium_captured VALUES ('${name}', ${noted(row)});`;
    const when = "WHEN EXISTS (SELECT 1 FROM atrium_capture_on)";
    this.client.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS "atrium_capture_${name}_insert" AFTER INSERT ON "${name}" ${when} BEGIN ${note("NEW")} END;
      CREATE TEMP TRIGGER IF NOT EXISTS "atrium_capture_${name}_update" AFTER UPDATE ON "${name}" ${when} BEGIN ${note("OLD")} ${note("NEW")} END;
      CREATE TEMP TRIGGER IF NOT EXISTS "atrium_capture_${name}_delete" AFTER DELETE ON "${name}" ${when} BEGIN ${note("OLD")} END;
    `);
    const matches = keys.map((key, index) => `t.${quoted(key)} = c.k${index + 1}`).join(" AND ");
    const captured = "(SELECT DISTINCT k1, k2 FROM temp.atrium_captured WHERE tbl = ?) c";
    return {
      name,
      present: this.client.prepare(`SELECT t.* FROM ${captured} JOIN main."${name}" t ON ${matches} ORDER BY t.rowid`),
      gone: this.client.prepare(
        `SELECT ${keys.map((key, index) => `c.k${index + 1} AS ${quoted(key)}`).join(", ")} FROM ${captured}
          WHERE NOT EXISTS (SELECT 1 FROM main."${name}" t WHERE ${matches})`,
      ),
      ofConversation: this.client.prepare(`SELECT * FROM main."${name}" WHERE ${OWNED_BY[name] ?? "conversation_id = @id"} ORDER BY rowid`),
      columns: config.columns,
    };
  }
}

/** How a table's rows name their conversation, where it is not by conversation_id (as IndexWriter.removeConversation and forgetCreation find them). */
const OWNED_BY: Record<string, string> = {
  conversations: "id = @id",
  request_keys: "scope = @id OR (scope = '' AND json_extract(response, '$.conversationId') = @id)",
};

/** The columns of a table's primary key, by name: its one primary column, or its composite key's. */
export function primaryKeyOf(table: SQLiteTable): string[] {
  const config = getTableConfig(table);
  const single = config.columns.filter((column) => column.primary).map((column) => column.name);
  const composite = config.primaryKeys.flatMap((key) => key.columns.map((column) => column.name));
  const keys = [...single, ...composite];
  if (keys.length < 1 || keys.length > 2) throw new Error(`index table ${config.name} has ${keys.length} primary key columns; the capture of its rows handles one or two`);
  return keys;
}

/** A row read from SQLite with each column's value as drizzle maps it (booleans stored as 0/1 become booleans). */
function typed(row: Record<string, unknown>, columns: SQLiteColumn[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const column of columns) {
    if (!(column.name in row)) continue;
    const value = row[column.name];
    result[column.name] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return result;
}
