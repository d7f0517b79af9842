import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratePostgresIndex } from "@/lib/store/postgres/index-migrations";
import { copyIndexRows } from "@/lib/store/postgres/index-row-copy";
import { PostgresIndexReads } from "@/lib/store/postgres/postgres-index-reads";
import { SqliteIndexReads } from "@/lib/store/sqlite-index-reads";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { buildIndexCorpus, type Corpus } from "../../support/index-corpus";
import { expectSameReads } from "../../support/index-reads-comparison";
import { postgresIndexDump } from "../../support/index-tables-dump";

/**
 * Issue 24, step (d): the index corpus (tests/support/index-corpus.ts) built by a real Runtime that
 * is a node of a cluster, so every index row reached PostgreSQL row by row with its records. Its
 * atrium_index_* tables must then answer every read as the node's SQLite index does, and hold
 * exactly what copyIndexRows makes of that index in an empty database.
 */
const database = usePostgresPerFile();

let corpus: Corpus;
let copy: pg.Pool;

beforeAll(async () => {
  corpus = await buildIndexCorpus({ databaseUrl: database.postgres.url });
  await database.pool.query("CREATE DATABASE atrium_copy");
  copy = new pg.Pool({ connectionString: database.postgres.url.replace(/\/postgres$/, "/atrium_copy"), max: 4 });
  copy.on("error", () => undefined);
  const client = await copy.connect();
  try {
    await migratePostgresIndex(client);
  } finally {
    client.release();
  }
  await copyIndexRows(corpus.harness.runtime.store.index, copy);
}, 180_000);

afterAll(async () => {
  await copy?.end();
  await corpus?.harness.close();
});

describe("a cluster node's index rows in PostgreSQL", () => {
  it("answer every read as the node's SQLite index does", async () => {
    expect(corpus.harness.cluster).not.toBeNull();
    const index = corpus.harness.runtime.store.index;
    // Three capture triggers on each of the ten index tables, on this node's connection only.
    expect(index.$client.prepare("SELECT count(*) FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE 'atrium_capture_%'").pluck().get()).toBe(30);
    await expectSameReads(index, new SqliteIndexReads(index), new PostgresIndexReads(database.pool));
  }, 120_000);

  it("find the same conversations for a search, as the node's SQLite index does", async () => {
    const index = corpus.harness.runtime.store.index;
    const [sqliteReads, postgresReads] = [new SqliteIndexReads(index), new PostgresIndexReads(database.pool)];
    let found = 0;
    for (const q of ["apple", "pie", "message", "second", "Same", "title", "zebra", "NUL", "fork", "delegate", "objective", "queued", "nothing like it"]) {
      const query = { archived: "all" as const, q, offset: 0, limit: 200 };
      const expected = await sqliteReads.listConversations(query);
      expect(await postgresReads.listConversations(query), q).toEqual(expected);
      found += expected.conversations.length;
    }
    expect(found).toBeGreaterThan(10);
  });

  it("are exactly the rows copyIndexRows makes of that index, search rows in the same order", async () => {
    const written = await postgresIndexDump(database.pool);
    expect(written.items!.length).toBeGreaterThan(50);
    // The corpus's records are the database's: the node wrote no conversation files.
    const records = await database.pool.query<{ n: string }>("SELECT count(DISTINCT conversation_id) AS n FROM atrium_records");
    expect(Number(records.rows[0]!.n)).toBe(written.conversations!.length);
    expect(written).toEqual(await postgresIndexDump(copy));
    for (const table of ["atrium_index_item_search", "atrium_index_title_search"]) {
      const rows = (pool: pg.Pool) => pool.query(`SELECT to_jsonb(t) - 'position' AS row FROM ${table} t ORDER BY position`).then((result) => result.rows);
      const incremental = await rows(database.pool);
      expect(incremental.length, table).toBeGreaterThan(10);
      expect(incremental, table).toEqual(await rows(copy));
    }
  });
});
