import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexReads } from "@/lib/store/index-reads";
import { copyIndexRows } from "@/lib/store/postgres/index-row-copy";
import { PostgresIndexReads } from "@/lib/store/postgres/postgres-index-reads";
import { SqliteIndexReads } from "@/lib/store/sqlite-index-reads";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { buildIndexCorpus, localeDatabase, type Corpus } from "../../support/index-corpus";
import { expectSameReads } from "../../support/index-reads-comparison";

/**
 * Issue 24, step (b): the index reads answer the same on both backends. A corpus is built by the
 * real Runtime into its SQLite index, its rows copied into the cluster's tables in PostgreSQL,
 * and every IndexReads method is called on both with a matrix of arguments; the answers must be
 * deeply equal, and every method must have given a non-empty answer somewhere (so the test
 * cannot pass on empty tables).
 */
const database = usePostgresPerFile();

let corpus: Corpus;
let sqliteReads: SqliteIndexReads;
let postgresReads: PostgresIndexReads;
let locale: pg.Pool;

beforeAll(async () => {
  corpus = await buildIndexCorpus();
  locale = await localeDatabase(database);
  const index = corpus.harness.runtime.store.index;
  // Small batches: every table of more than a few rows is copied in several.
  const copied = await copyIndexRows(index, locale, 7);
  for (const [table, rows] of Object.entries(copied)) {
    expect(rows, table).toBe((index.$client.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
  }
  sqliteReads = new SqliteIndexReads(index);
  postgresReads = new PostgresIndexReads(locale);
}, 120_000);

afterAll(async () => {
  await locale?.end();
  await corpus?.harness.close();
});

describe("IndexReads on SQLite and on PostgreSQL", () => {
  it("answer every read with the same values in the same order, and each read answers something somewhere", async () => {
    await expectSameReads(corpus.harness.runtime.store.index, sqliteReads, postgresReads);
  }, 120_000);

  it("page through every list of conversations with the API's cursor to the same conversations, each once", async () => {
    for (const archived of ["false", "true", "all"] as const) {
      for (const sort of ["updated", "created", "title", "model"] as const) {
        for (const direction of ["asc", "desc"] as const) {
          const pages = async (reads: IndexReads) => {
            const seen: string[] = [];
            for (let offset = 0; ; offset += 2) {
              const { conversations, total } = await reads.listConversations({ archived, sort, direction, offset, limit: 2 });
              seen.push(...conversations.map((conversation) => conversation.id));
              if (offset + conversations.length >= total) return seen;
            }
          };
          const [fromSqlite, fromPostgres] = await Promise.all([pages(sqliteReads), pages(postgresReads)]);
          expect(fromPostgres, `${archived} ${sort} ${direction}`).toEqual(fromSqlite);
          expect(new Set(fromSqlite).size).toBe(fromSqlite.length);
        }
      }
    }
  });

  it("hold a corpus that makes the orders matter: ties, byte order against locale order, restarts", async () => {
    const titles = (await sqliteReads.listConversations({ archived: "all", sort: "title", direction: "asc", offset: 0, limit: 200 })).conversations.map((conversation) => conversation.title);
    // Bytes put upper case before lower case and "Ä", "É", "é" and "🍎" after both; a locale would not.
    const at = (start: string) => titles.findIndex((title) => title.startsWith(start));
    expect(at("Banana")).toBeLessThan(at("apple"));
    expect(at("apple")).toBeLessThan(at("Äpfel"));
    expect(titles.filter((title) => title === "Same title")).toHaveLength(2);
    const created = (await sqliteReads.listConversations({ archived: "all", sort: "created", offset: 0, limit: 200 })).conversations.map((conversation) => conversation.createdAt);
    expect(new Set(created).size).toBeLessThan(created.length);
    expect(await sqliteReads.restartsOf(corpus.forkedId)).toHaveLength(2);
    expect((await sqliteReads.openTurns()).map((turn) => turn.status).sort()).toEqual(["waiting_approval", "waiting_user"]);
  });
});
