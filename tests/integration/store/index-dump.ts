import type Database from "better-sqlite3";

export type IndexDump = Record<string, unknown[]>;

/**
 * Every index table, rows ordered by primary key, without rowids (they follow insertion order,
 * which a rebuild need not repeat). Full-text rows are named by the id of the row they mirror.
 */
export function dumpIndex(client: Database.Database): IndexDump {
  const tables = (
    client
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE '__drizzle%' AND name NOT LIKE '%_fts%' ORDER BY name`,
      )
      .all() as Array<{ name: string }>
  ).map((row) => row.name);
  const dump: IndexDump = {};
  for (const table of tables) {
    const keys = (client.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; pk: number }>)
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    dump[table] = client.prepare(`SELECT * FROM ${table} ORDER BY ${keys.join(", ")}`).all();
  }
  for (const fts of ["item_fts", "title_fts"]) client.prepare(`INSERT INTO ${fts}(${fts}) VALUES ('integrity-check')`).run();
  dump.item_fts = client
    .prepare(
      `SELECT items.id AS item_id, item_fts.text, item_fts.conversation_id FROM item_fts
       LEFT JOIN items ON items.rowid = item_fts.rowid ORDER BY items.id, item_fts.text`,
    )
    .all();
  dump.title_fts = client
    .prepare(
      `SELECT conversations.id AS conversation_id, title_fts.title FROM title_fts
       LEFT JOIN conversations ON conversations.rowid = title_fts.rowid ORDER BY conversations.id, title_fts.title`,
    )
    .all();
  return dump;
}
