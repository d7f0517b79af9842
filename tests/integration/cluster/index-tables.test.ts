import fs from "node:fs";
import path from "node:path";
import { asc } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg_ from "pg";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { openIndex } from "@/lib/store/database";
import * as sqlite from "@/lib/store/schema";
import { migratePostgresIndex, PG_INDEX_MIGRATIONS_TABLE } from "@/lib/store/postgres/index-migrations";
import * as pg from "@/lib/store/postgres/index-tables";
import { ensurePostgresSchema } from "@/lib/store/postgres/schema";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";

/**
 * The cluster's index tables (issue 24's first step): derived from the one SQLite declaration and
 * created by drizzle's PostgreSQL migrations at a node's start, not yet read or written.
 */
const database = usePostgresPerFile();

/** How many migrations drizzle-postgres/ holds (each applied once). */
const MIGRATIONS = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "..", "..", "..", "drizzle-postgres", "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;

interface ColumnShape {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: number;
}

/** The index tables of a fresh SQLite index, as `PRAGMA table_info` and `index_list` give them. */
function sqliteShapes(file: string) {
  const index = openIndex(file);
  try {
    const client = index.$client;
    const names = client.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' AND name NOT LIKE '%_fts%' ORDER BY name").pluck().all() as string[];
    return names.map((table) => {
      const columns = (client.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; type: string; notnull: number; pk: number }>).map(
        (column): ColumnShape => ({ name: column.name, type: column.type.toLowerCase(), notNull: column.notnull === 1 || column.pk > 0, primaryKey: column.pk }),
      );
      const indexes = (client.prepare(`SELECT name FROM pragma_index_list('${table}') WHERE origin = 'c' ORDER BY name`).pluck().all() as string[]).map((name) => ({
        name,
        columns: client.prepare(`SELECT name FROM pragma_index_info('${name}') ORDER BY seqno`).pluck().all() as string[],
      }));
      return { table, columns, indexes };
    });
  } finally {
    index.$client.close();
  }
}

/** The same facts of one PostgreSQL table. */
async function postgresShape(table: string) {
  const columns = await database.pool.query<{ name: string; type: string; collation: string | null; not_null: boolean; key: number }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, co.collname AS collation, a.attnotnull AS not_null,
            coalesce(array_position(pk.conkey, a.attnum), 0) AS key
       FROM pg_attribute a
       LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
       LEFT JOIN pg_constraint pk ON pk.conrelid = a.attrelid AND pk.contype = 'p'
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [table],
  );
  const indexes = await database.pool.query<{ name: string; columns: string[] }>(
    `SELECT i.relname AS name, array_agg(a.attname::text ORDER BY k.n) AS columns
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
      WHERE x.indrelid = $1::regclass AND NOT x.indisprimary
      GROUP BY i.relname ORDER BY i.relname`,
    [table],
  );
  return { columns: columns.rows, indexes: indexes.rows };
}

describe("the cluster's index tables in PostgreSQL", () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => (temp = makeTempHome()));
  afterEach(() => temp.cleanup());

  it("have the SQLite index's tables, columns, keys and indexes, in PostgreSQL's types", async () => {
    const shapes = sqliteShapes(path.join(temp.home, "metadata.db"));
    expect(shapes.map((shape) => shape.table)).toEqual(["approvals", "compactions", "conversations", "items", "objectives", "questions", "request_keys", "sessions", "turns", "waiting"]);
    const booleans = new Set(["conversations.archived", "conversations.protected"]);
    for (const { table, columns, indexes } of shapes) {
      const found = await postgresShape(`${pg.PG_INDEX_PREFIX}${table}`);
      // By name: SQLite's ALTER TABLE … ADD COLUMN appends (restart_of_item_id), the declaration orders them as written.
      expect(found.columns.map((column) => column.name).sort(), table).toEqual(columns.map((column) => column.name).sort());
      for (const column of columns) {
        const twin = found.columns.find((candidate) => candidate.name === column.name)!;
        const expected = booleans.has(`${table}.${column.name}`) ? "boolean" : column.type === "integer" ? "bigint" : "text";
        expect({ type: twin.type, collation: twin.collation, notNull: twin.not_null, key: twin.key }, `${table}.${column.name}`).toEqual({
          type: expected,
          collation: expected === "text" ? "C" : null,
          notNull: column.notNull,
          key: column.primaryKey,
        });
      }
      expect(found.indexes, table).toEqual(indexes.map((declared) => ({ name: `${pg.PG_INDEX_PREFIX}${declared.name}`, columns: declared.columns })));
    }
  });

  it("are created once however many nodes start at the same time, and again by nobody", async () => {
    await Promise.all([ensurePostgresSchema(database.pool), ensurePostgresSchema(database.postgres.pool()), ensurePostgresSchema(database.postgres.pool())]);
    const applied = await database.pool.query<{ count: string }>(`SELECT count(*) FROM public.${PG_INDEX_MIGRATIONS_TABLE}`);
    expect(Number(applied.rows[0]!.count)).toBe(MIGRATIONS);
  });

  it("read back the rows the SQLite tables hold, of the same types, ordered by bytes as SQLite orders them", async () => {
    expectTypeOf<typeof pg.conversations.$inferSelect>().toEqualTypeOf<typeof sqlite.conversations.$inferSelect>();
    expectTypeOf<typeof pg.items.$inferSelect>().toEqualTypeOf<typeof sqlite.items.$inferSelect>();
    expectTypeOf<typeof pg.requestKeys.$inferInsert>().toEqualTypeOf<typeof sqlite.requestKeys.$inferInsert>();
    const row = (id: string, title: string) => ({
      id,
      title,
      titleSource: "user",
      agent: "default",
      model: "offline",
      cwd: "/srv",
      executor: "local",
      rootSessionId: `${id}-root`,
      createdAt: "2026-12-04T03:00:00.000Z",
      updatedAt: "2026-12-04T03:00:00.000Z",
      metadataSeq: 2 ** 40,
    });
    const db = drizzle({ client: database.pool });
    await db.insert(pg.conversations).values([row("c1", "apple"), row("c2", "Banana"), row("c3", "Äpfel")]);
    try {
      const read = await db.select().from(pg.conversations).orderBy(asc(pg.conversations.title));
      // "B" < "a" < "Ä" in bytes, as SQLite's BINARY collation orders them (a locale's would give a, Ä, B;
      // the columns' "C" collation is checked above, this test database's locale may be C anyway).
      expect(read.map((conversation) => conversation.title)).toEqual(["Banana", "apple", "Äpfel"]);
      expect(read[0]).toEqual({ ...row("c2", "Banana"), effort: null, archived: false, protected: false, status: "idle", forkedFromConversationId: null, forkedFromItemId: null, restartOfItemId: null, metadataBytes: 0 });
    } finally {
      await db.delete(pg.conversations);
    }
  });

  it("are created by a role that may create tables in its schema but not schemas in the database", async () => {
    await database.pool.query("CREATE DATABASE atrium_narrow");
    await database.pool.query("CREATE ROLE atrium_narrow LOGIN PASSWORD 'narrow'");
    const owner = new pg_.Pool({ connectionString: database.postgres.url.replace(/\/postgres$/, "/atrium_narrow") });
    await owner.query("REVOKE CREATE ON DATABASE atrium_narrow FROM PUBLIC; GRANT USAGE, CREATE ON SCHEMA public TO atrium_narrow");
    await owner.end();
    const narrow = new pg_.Pool({ connectionString: database.postgres.url.replace("postgres:atrium@", "atrium_narrow:narrow@").replace(/\/postgres$/, "/atrium_narrow") });
    try {
      await ensurePostgresSchema(narrow);
      const tables = await narrow.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'atrium_index_%' ORDER BY tablename");
      expect(tables.rows.map((row) => row.name)).toContain(`${pg.PG_INDEX_PREFIX}conversations`);
      // The 10 index tables, the migrations applied, and the full-text rows of items and titles (search-tables.ts).
      expect(tables.rows.map((row) => row.name)).toEqual(expect.arrayContaining([`${pg.PG_INDEX_PREFIX}item_search`, `${pg.PG_INDEX_PREFIX}title_search`]));
      expect(tables.rows).toHaveLength(13);
    } finally {
      await narrow.end();
    }
  });

  it("apply a migration added later on the next start, once", async () => {
    const folder = path.join(temp.home, "drizzle-postgres");
    fs.cpSync(path.resolve(import.meta.dirname, "..", "..", "..", "drizzle-postgres"), folder, { recursive: true });
    const journalPath = path.join(folder, "meta", "_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number; when: number; tag: string }> };
    const last = journal.entries.at(-1)!;
    const tag = `${String(last.idx + 1).padStart(4, "0")}_test-extra`;
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
    fs.writeFileSync(journalPath, JSON.stringify(journal));
    fs.writeFileSync(path.join(folder, `${tag}.sql`), `CREATE TABLE "${pg.PG_INDEX_PREFIX}test_extra" ("id" text PRIMARY KEY);`);
    const client = await database.pool.connect();
    try {
      await migratePostgresIndex(client, folder);
      await migratePostgresIndex(client, folder);
      const applied = await client.query<{ count: string }>(`SELECT count(*) FROM ${PG_INDEX_MIGRATIONS_TABLE}`);
      expect(Number(applied.rows[0]!.count)).toBe(MIGRATIONS + 1);
      expect((await client.query(`SELECT to_regclass('${pg.PG_INDEX_PREFIX}test_extra') AS found`)).rows[0]!.found).not.toBeNull();
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${pg.PG_INDEX_PREFIX}test_extra; DELETE FROM ${PG_INDEX_MIGRATIONS_TABLE} WHERE created_at = ${last.when + 1000}`);
      client.release();
    }
  });
});
