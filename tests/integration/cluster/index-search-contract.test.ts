import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationListQuery, IndexReads } from "@/lib/store/index-reads";
import { copyIndexRows } from "@/lib/store/postgres/index-row-copy";
import { PostgresIndexReads } from "@/lib/store/postgres/postgres-index-reads";
import { SqliteIndexReads } from "@/lib/store/sqlite-index-reads";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { CORPUS_CONFIG, localeDatabase } from "../../support/index-corpus";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24, step (e): a search of conversations (`q`) answers the same on PostgreSQL as on SQLite's
 * FTS5. Conversations whose messages and titles hold what a tokenizer can disagree on (case,
 * diacritics precomposed and combining, ß, Turkish İ, CJK, emoji, digits, underscores, FTS5's own
 * operators, NUL and lone surrogates, tokens longer than a tsvector lexeme) are made by the real
 * Runtime, copied into PostgreSQL, and a matrix of queries is asked of both backends.
 */
const database = usePostgresPerFile();

const LONG = "x".repeat(300);
const TEXTS = [
  "Crème brûlée at the Café: ÉCOLE naïve",
  "Straße and STRASSE, Maß",
  "İstanbul trip, dotless ı and ISTANBUL",
  "東京都 日本語 テスト 한국어",
  "emoji 😀 party🎉time 👍🏽 ok",
  "version 1.2.3 and 3.14, the 42nd user_id in snake_case __dunder__",
  'He said "quote" AND NEAR(alpha beta) -minus col:value star* OR NOT ^caret {curly brace}',
  "e\u0301cole deco\u0301mpose\u0301 x\u0301y",
  `${LONG}z tail ${"y".repeat(255)}`,
  "a NUL \u0000 inside, a lone \ud800 surrogate, \uffff0 escape",
  "mango common message",
  "mango common second",
  "common only here",
  "Zed model common mango",
];

const QUERIES = [
  "cafe", "Café", "CAFÉ", "caf", "c", "crème brûlée", "creme brulee", "brulee creme", "école", "ecole", "EcOlE", "naive", "naïve",
  "strasse", "straße", "STRASSE", "stra", "ß", "maß", "mass", "ma",
  "istanbul", "İstanbul", "İSTANBUL", "ı", "dotless ı", "i",
  "東京", "東京都", "京都", "日本語", "テ", "テスト", "한국어", "한",
  "😀", "party", "party🎉time", "🎉", "👍🏽 ok", "time",
  "1", "1.2", "1.2.3", "3.14", "42", "42nd", "2nd", "user_id", "user_i", "user id", "snake_id", "id_user", "crème_naïve", "the_42nd", "snake_case", "snake case", "_", "__", "__dunder__", "dunder",
  '"quote"', '"quote', "AND", "and", "NEAR", "NEAR(alpha", "alpha beta", "-minus", "minus", "col:value", "col", "value", "star*", "star", "^caret", "{curly", "OR NOT", "not",
  "...", "!!!", "*", '"', "-", ":", "()", "   ",
  "x\u0301y", "xy", "deco\u0301mpose\u0301", "decompose", "e\u0301cole",
  LONG, `${LONG}z`, `${LONG}q`, "x".repeat(255), "x".repeat(256), "y".repeat(255), "y".repeat(256), "tail",
  "nul inside", "NUL", "lone surrogate", "\u0000", "\ud800", "\uffff0", "escape",
  "zanzibar", "renamed title", "title", "mango", "common", "common mango", "message", "second", "the",
  "no such word anywhere", "apple",
];

let harness: Harness;
let sqliteReads: SqliteIndexReads;
let postgresReads: PostgresIndexReads;
let locale: pg.Pool;

beforeAll(async () => {
  harness = await startHarness(CORPUS_CONFIG);
  const { runtime } = harness;
  const ids: string[] = [];
  for (const [at, text] of TEXTS.entries()) {
    const created = await runtime.createConversation({ text, ...(text.startsWith("Zed") ? { model: "Zed" } : {}) });
    ids.push(created.conversation.id);
    await pollUntil(() => runtime.listSessions(created.conversation.id).every((session) => session.status === "idle"), { what: `conversation ${at} to settle` });
  }
  await runtime.updateConversation(ids[0]!, { title: "Zanzibar renamed title" });
  await runtime.updateConversation(ids[11]!, { archived: true });
  await runtime.updateConversation(ids[2]!, { archived: true });
  locale = await localeDatabase(database);
  const index = runtime.store.index;
  const copied = await copyIndexRows(index, locale, 5);
  for (const table of ["item_fts", "title_fts"]) {
    expect(copied[table], table).toBe((index.$client.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);
  }
  sqliteReads = new SqliteIndexReads(index);
  postgresReads = new PostgresIndexReads(locale);
}, 120_000);

afterAll(async () => {
  await locale?.end();
  await harness?.close();
});

/** Both backends' answers to one query, the PostgreSQL one asserted deeply equal. */
async function compare(reads: [IndexReads, IndexReads], query: ConversationListQuery) {
  const [fromSqlite, fromPostgres] = await Promise.all(reads.map((backend) => backend.listConversations(query)));
  expect(fromPostgres, JSON.stringify(query)).toStrictEqual(fromSqlite);
  return fromSqlite!;
}

describe("a search of conversations on SQLite and on PostgreSQL", () => {
  it("finds the same conversations, in the same order and total, for every query, filter and page", async () => {
    const found = new Set<string>();
    let compared = 0;
    for (const q of QUERIES)
      for (const archived of ["false", "true", "all"] as const)
        for (const [sort, direction] of [[undefined, undefined], ["title", "asc"], ["created", "desc"]] as const)
          for (const model of [undefined, "Zed"])
            for (const [offset, limit] of [[0, 200], [0, 2], [2, 2]] as const) {
              const answer = await compare([sqliteReads, postgresReads], { q, archived, sort, direction, model, offset, limit });
              if (answer.total > 0) found.add(q);
              compared += 1;
            }
    expect(compared).toBe(QUERIES.length * 54);
    // The matrix is not answered by empty tables: most queries find something, and these must.
    for (const q of ["Café", "straße", "İstanbul", "東京都", "party", "user_id", "3.14", '"quote"', "NEAR(alpha", LONG, "NUL", "zanzibar", "mango", "x\u0301y", "東京"]) expect(found, q).toContain(q);
    // SQLite's own answers, kept: a combining accent in the query splits its word ("e" and "cole"), though the
    // text's decomposed "école" is indexed as "ecole"; no token starts with "ß" ("straße" is one token), and a run of CJK characters is one token, found by
    // its beginning only ("東京" finds "東京都", "京都" does not).
    for (const q of ["ß", "😀", "...", "_", "\u0000", "京都", "e\u0301cole", "no such word anywhere"]) expect(found, q).not.toContain(q);
  }, 300_000);

  it("finds the same messages of a session, pages and totals, for every query", async () => {
    const sessions = harness.runtime.store.index.$client.prepare("SELECT conversation_id AS conversationId, id FROM sessions ORDER BY id").all() as Array<{ conversationId: string; id: string }>;
    let found = 0;
    for (const q of QUERIES)
      for (const { conversationId, id } of sessions)
        for (const page of [{ after: 0 }, { after: 1 }, { before: 1_000_000 }, { before: 2 }])
          for (const limit of [1, 50]) {
            const call = (reads: IndexReads) => reads.searchSessionItems(conversationId, id, q, page, limit);
            const [fromSqlite, fromPostgres] = await Promise.all([call(sqliteReads), call(postgresReads)]);
            expect(fromPostgres, JSON.stringify([q, page, limit])).toStrictEqual(fromSqlite);
            if (fromSqlite.total > 0) found += 1;
          }
    expect(found).toBeGreaterThan(QUERIES.length);
  }, 300_000);

  it("pages through a search with the API's cursor to the same conversations", async () => {
    for (const q of ["common", "mango", "the", "a", "e"]) {
      const pages = async (reads: IndexReads) => {
        const seen: string[] = [];
        for (let offset = 0; ; offset += 1) {
          const { conversations, total } = await reads.listConversations({ q, archived: "all", sort: "title", direction: "asc", offset, limit: 1 });
          seen.push(...conversations.map((conversation) => conversation.id));
          if (offset + conversations.length >= total) return seen;
        }
      };
      const [fromSqlite, fromPostgres] = await Promise.all([pages(sqliteReads), pages(postgresReads)]);
      expect(fromPostgres, q).toEqual(fromSqlite);
      expect(fromSqlite.length, q).toBeGreaterThan(0);
    }
  });

  it("looks at the same newest matches when more match than the candidate limit", async () => {
    let narrowed = 0;
    for (const searchCandidateLimit of [1, 2, 3]) {
      const reads: [IndexReads, IndexReads] = [new SqliteIndexReads(harness.runtime.store.index, { searchCandidateLimit }), new PostgresIndexReads(locale, { searchCandidateLimit })];
      for (const q of ["common", "mango", "the", "a", "e", "i"])
        for (const archived of ["false", "true", "all"] as const) {
          const limited = await compare(reads, { q, archived, offset: 0, limit: 200 });
          const whole = await sqliteReads.listConversations({ q, archived, offset: 0, limit: 200 });
          if (limited.total < whole.total) narrowed += 1;
        }
    }
    // The limit took effect somewhere: otherwise this test compares nothing the first did not.
    expect(narrowed).toBeGreaterThan(5);
  });

  // Last: it empties PostgreSQL's vectors. A row whose distinct words do not fit a tsvector (1 MiB) is
  // marked incomplete and found by its token stream alone; here every row is, and the answers hold.
  it("finds the same conversations by the token stream alone when a row's vector is incomplete", async () => {
    await locale.query("UPDATE atrium_index_item_search SET vector = '', complete = false");
    await locale.query("UPDATE atrium_index_title_search SET vector = '', complete = false");
    let found = 0;
    for (const q of QUERIES)
      for (const archived of ["false", "all"] as const) if ((await compare([sqliteReads, postgresReads], { q, archived, offset: 0, limit: 200 })).total > 0) found += 1;
    expect(found).toBeGreaterThan(QUERIES.length / 2);
  });
});
