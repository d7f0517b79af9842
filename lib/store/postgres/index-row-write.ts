import crypto from "node:crypto";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import type { Pool, PoolClient } from "pg";
import { databaseJson } from "./database-json";
import { primaryKeyOf, type TableChanges } from "./index-row-capture";
import { INDEX_TABLES } from "./index-row-copy";
import { DELETE_CONVERSATION_SEARCH, searchChanges, searchParts, searchShape, type SearchChanges } from "./index-search-write";
import { PG_INDEX_PREFIX } from "./index-tables";

interface TableShape {
  keys: string[];
  others: string[];
  /** Every column SQLite's table declares, quoted, in order. */
  columns: string;
}

const quoted = (name: string) => `"${name}"`;

const SHAPES = new Map<string, TableShape>(
  INDEX_TABLES.map(([table]) => {
    const config = getTableConfig(table);
    const keys = primaryKeyOf(table);
    const names = config.columns.map((column) => column.name);
    return [config.name, { keys, others: names.filter((name) => !keys.includes(name)), columns: names.map(quoted).join(", ") }];
  }),
);

/**
 * Writes index rows a node's IndexWriter changed (IndexRowCapture) into the cluster's
 * atrium_index_* tables, in one statement on `client` (inside the transaction that appends their
 * records, so they commit or vanish with them): each table's rows upserted whole, its gone rows
 * deleted by primary key, and the search rows that follow them (index-search-write.ts). The rows
 * travel as one jsonb parameter written through databaseJson, so text holding NUL or a lone
 * surrogate reaches its `text COLLATE "C"` column in the form databaseText gives it (the form
 * index-tables.ts reads back). Only the columns SQLite's tables declare are named.
 */
export async function writeIndexChanges(client: PoolClient, changes: TableChanges[]): Promise<void> {
  if (changes.length === 0) return;
  const search = searchChanges(changes);
  const searching = searchShape(search);
  const shape = `${changes.map((change) => `${change.table}:${change.rows.length > 0 ? "r" : ""}${change.gone.length > 0 ? "g" : ""}`).join(",")};${searching}`;
  let statement = STATEMENTS.get(shape);
  if (!statement) {
    statement = statementFor(changes, search);
    STATEMENTS.set(shape, statement);
  }
  const values = [databaseJson(changes.map(({ rows, gone }) => ({ rows, gone })))];
  if (searching !== "") values.push(JSON.stringify(search));
  await client.query({ ...statement, values });
}

/** The index tables holding a conversation's rows by conversation_id (conversations by id, request_keys by scope). */
const BY_CONVERSATION = ["sessions", "turns", "items", "waiting", "approvals", "questions", "objectives", "compactions"];

/**
 * Every row a conversation has in the atrium_index_* tables removed, its search rows too (its
 * creation's request key stays, as IndexWriter.removeConversation leaves it), through `client`,
 * before its whole rows are written again.
 */
export async function deleteConversationRows(client: PoolClient, conversationId: string): Promise<void> {
  const statements = [
    ...BY_CONVERSATION.map((table) => `DELETE FROM "${PG_INDEX_PREFIX}${table}" WHERE conversation_id = $1`),
    `DELETE FROM "${PG_INDEX_PREFIX}request_keys" WHERE scope = $1`,
    `DELETE FROM "${PG_INDEX_PREFIX}conversations" WHERE id = $1`,
    ...DELETE_CONVERSATION_SEARCH,
  ];
  const text = `WITH ${statements.map((statement, position) => `d${position} AS (${statement})`).join(", ")} SELECT 1`;
  await client.query({ name: "atrium_index_rows_conversation_deleted", text, values: [conversationId] });
}

/**
 * A creation undone: the row its requestKey has in atrium_index_request_keys (scope "", its
 * response naming the conversation) removed, as IndexWriter.forgetCreation removes it on one node.
 */
export async function deleteCreationKeyRow(pool: Pool, conversationId: string): Promise<void> {
  await pool.query(
    `DELETE FROM "${PG_INDEX_PREFIX}request_keys" WHERE scope = '' AND strpos(response, $1) > 0
      AND key = (SELECT record->>'requestKey' FROM atrium_records WHERE conversation_id = $1 AND stream = 'metadata' AND seq = 1)`,
    [conversationId],
  );
}

/** The statement of each shape of changes (which tables, rows or gone or both), made once. */
const STATEMENTS = new Map<string, { name: string; text: string }>();

function statementFor(changes: TableChanges[], search: SearchChanges): { name: string; text: string } {
  const parts: string[] = [];
  changes.forEach((change, position) => {
    const shape = SHAPES.get(change.table);
    if (!shape) throw new Error(`${change.table} is not an index table`);
    const target = quoted(`${PG_INDEX_PREFIX}${change.table}`);
    const rowsOf = (field: "rows" | "gone") => `jsonb_populate_recordset(NULL::${target}, $1::jsonb -> ${position} -> '${field}')`;
    if (change.gone.length > 0) {
      const matches = shape.keys.map((key) => `t.${quoted(key)} = k.${quoted(key)}`).join(" AND ");
      parts.push(`gone_${position} AS (DELETE FROM ${target} t USING ${rowsOf("gone")} k WHERE ${matches})`);
    }
    if (change.rows.length > 0) {
      const update = shape.others.length > 0 ? `DO UPDATE SET ${shape.others.map((name) => `${quoted(name)} = EXCLUDED.${quoted(name)}`).join(", ")}` : "DO NOTHING";
      parts.push(`rows_${position} AS (INSERT INTO ${target} (${shape.columns}) SELECT ${shape.columns} FROM ${rowsOf("rows")} ON CONFLICT (${shape.keys.map(quoted).join(", ")}) ${update})`);
    }
  });
  parts.push(...searchParts(search, "$2"));
  const text = `WITH ${parts.join(",\n")} SELECT 1`;
  // Named, so each connection parses and plans each shape once.
  return { name: `atrium_index_rows_${crypto.createHash("sha256").update(text).digest("hex").slice(0, 32)}`, text };
}
