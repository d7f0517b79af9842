import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexReads } from "@/lib/store/index-reads";
import { copyIndexRows } from "@/lib/store/postgres/index-row-copy";
import { PostgresIndexReads } from "@/lib/store/postgres/postgres-index-reads";
import { SqliteIndexReads } from "@/lib/store/sqlite-index-reads";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { buildIndexCorpus, localeDatabase, type Corpus } from "../../support/index-corpus";

/**
 * Issue 24, step (b): the index reads answer the same on both backends. A corpus is built by the
 * real Runtime into its SQLite index, its rows copied into the cluster's tables in PostgreSQL,
 * and every IndexReads method is called on both with a matrix of arguments; the answers must be
 * deeply equal, and every method must have given a non-empty answer somewhere (so the test
 * cannot pass on empty tables).
 */
const database = usePostgresPerFile();

type Matrix = { [Method in keyof IndexReads]: Array<Parameters<IndexReads[Method]>> };

/** The methods documented as answering in no particular order: compared as sorted lists. */
const UNORDERED = new Set<keyof IndexReads>(["openTurns", "conversationsWithObjective", "conversationsWithWaiting"]);

const UNKNOWN = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

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

/** Every id of a kind the corpus holds, read from the SQLite index, plus one that names nothing. */
function idsOf(sql: string): string[] {
  return [...(corpus.harness.runtime.store.index.$client.prepare(sql).pluck().all() as string[]), UNKNOWN];
}

function matrix(): Matrix {
  const conversations = idsOf("SELECT id FROM conversations ORDER BY id");
  const sessions = idsOf("SELECT id FROM sessions ORDER BY id");
  const turns = idsOf("SELECT id FROM turns ORDER BY id");
  const items = idsOf("SELECT id FROM items ORDER BY id");
  const approvals = idsOf("SELECT id FROM approvals");
  const questions = idsOf("SELECT id FROM questions");
  const statuses = [undefined, "pending", "approved", "denied", "answered", "cancelled"];
  const decisionFilters = [...statuses.map((status) => ({ status })), ...conversations.flatMap((conversationId) => [{ conversationId }, { conversationId, status: "pending" }])];
  const listQueries: Matrix["listConversations"] = [];
  for (const archived of ["false", "true", "all"] as const)
    for (const sort of [undefined, "updated", "created", "title", "model"] as const)
      for (const direction of [undefined, "asc", "desc"] as const)
        for (const model of [undefined, "offline", "Zed", "nobody"])
          for (const [offset, limit] of [[0, 200], [0, 3], [3, 3], [6, 4], [50, 10]] as const) listQueries.push([{ archived, sort, direction, model, offset, limit }]);
  const keys = corpus.harness.runtime.store.index.$client.prepare("SELECT scope, key FROM request_keys").all() as Array<{ scope: string; key: string }>;
  const sessionsOf = corpus.harness.runtime.store.index.$client.prepare("SELECT conversation_id AS conversationId, id FROM sessions ORDER BY id").all() as Array<{ conversationId: string; id: string }>;
  const hitPages = [{ after: 0 }, { after: 2 }, { before: 1_000_000 }, { before: 4 }];
  const searchSessionItems: Matrix["searchSessionItems"] = sessionsOf.flatMap(({ conversationId, id }) =>
    ["message", "the", "apple pie", "NUL", "nothing at all"].flatMap((text) => hitPages.flatMap((page) => [1, 100].map((limit) => [conversationId, id, text, page, limit] as Parameters<IndexReads["searchSessionItems"]>))),
  );
  return {
    conversationRow: conversations.map((id) => [id]),
    conversation: conversations.map((id) => [id]),
    listConversations: listQueries,
    objectiveFor: conversations.map((id) => [id]),
    listItems: sessions.flatMap((id) => [[id, 0, 500], [id, 0, 1], [id, 0, 3], [id, 3, 2], [id, 2, 500], [id, 10_000, 5]] as Array<[string, number, number]>),
    getItem: items.map((id) => [id]),
    itemConversation: items.map((id) => [id]),
    searchSessionItems,
    listTurns: conversations.flatMap((id) => [[id], [id, undefined], ...sessions.map((sessionId) => [id, sessionId] as [string, string])]),
    listTurnSubset: conversations.flatMap((id) =>
      sessions.flatMap((sessionId) => [0, 1, 3].flatMap((recent) => [[id, { sessionId, ids: [], recent }], [id, { sessionId, ids: turns.slice(0, 4), recent }]] as Array<Parameters<IndexReads["listTurnSubset"]>>)),
    ),
    getTurn: turns.map((id) => [id]),
    openTurns: [[]],
    listWaiting: conversations.map((id) => [id]),
    listSessions: conversations.map((id) => [id]),
    listApprovals: decisionFilters.map((filter) => [filter]),
    getApproval: approvals.map((id) => [id]),
    listQuestions: decisionFilters.map((filter) => [filter]),
    getQuestion: questions.map((id) => [id]),
    lookupRequestKey: [...keys.map(({ scope, key }) => [scope, key] as [string, string]), ["", "never-used"], [conversations[0]!, "create-apple"]],
    latestCompaction: sessions.map((id) => [id]),
    lastCompactionOf: sessions.map((id) => [id]),
    conversationTokenTotals: conversations.map((id) => [id]),
    conversationsWithObjective: ["open", "paused", "waiting_event", "completed", "cancelled", "nothing"].map((status) => [status]),
    conversationsWithWaiting: [[]],
    restartsOf: conversations.map((id) => [id]),
    recentProjects: [[], [{}], [{ machine: "local" }], [{ machine: "elsewhere" }], [{ agent: "default" }], [{ agent: "nobody" }], [{ limit: 1 }], [{ limit: 2 }], [{ machine: "local", agent: "default", limit: 3 }]],
  };
}

/** Whether an answer holds something: a row, a non-empty list or page, a non-zero total. */
function nonEmpty(answer: unknown): boolean {
  if (answer === null || answer === undefined) return false;
  if (Array.isArray(answer)) return answer.length > 0;
  if (typeof answer !== "object") return true;
  const shape = answer as Record<string, unknown>;
  if (Array.isArray(shape.items)) return shape.items.length > 0;
  if (Array.isArray(shape.conversations)) return shape.conversations.length > 0;
  if (Array.isArray(shape.seqs)) return shape.seqs.length > 0;
  if (typeof shape.input === "number") return shape.input > 0 || (shape.output as number) > 0;
  return true;
}

const sorted = (answer: unknown) => [...(answer as unknown[])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe("IndexReads on SQLite and on PostgreSQL", () => {
  it("answer every read with the same values in the same order, and each read answers something somewhere", async () => {
    const calls = matrix();
    const answered = new Set<string>();
    let compared = 0;
    for (const [method, argumentLists] of Object.entries(calls) as Array<[keyof IndexReads, unknown[][]]>) {
      for (const args of argumentLists) {
        const call = (reads: IndexReads) => (reads[method] as (...values: unknown[]) => Promise<unknown>).apply(reads, args);
        const [fromSqlite, fromPostgres] = await Promise.all([call(sqliteReads), call(postgresReads)]);
        const label = `${method}(${JSON.stringify(args)})`;
        if (UNORDERED.has(method)) expect(sorted(fromPostgres), label).toStrictEqual(sorted(fromSqlite));
        else expect(fromPostgres, label).toStrictEqual(fromSqlite);
        if (nonEmpty(fromSqlite)) answered.add(method);
        compared += 1;
      }
    }
    expect(Object.keys(calls).filter((method) => !answered.has(method))).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
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
