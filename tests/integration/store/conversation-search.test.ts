import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { searchCandidates, toMatchExpression } from "@/lib/store/conversation-search";
import { listConversationRows } from "@/lib/store/queries";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { appendExchange, createConversation } from "./conversation-fixtures";

let temp: ReturnType<typeof makeTempHome>;
let store: Store;
beforeEach(() => {
  temp = makeTempHome();
  store = new Store(temp.home, { log: () => {} });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

const list = (query: Partial<Parameters<typeof listConversationRows>[1]> = {}) =>
  listConversationRows(store.index, { archived: "false", offset: 0, limit: 50, ...query });

it("a search's candidates are the conversations of the newest matches, up to the limit", async () => {
  const old = await createConversation(store, { title: "old", texts: ["common word here"] });
  const middle = await createConversation(store, { title: "middle", texts: ["common again"] });
  const recent = await createConversation(store, { title: "recent", texts: ["nothing"] });
  await appendExchange(store, recent, "common at last");
  const match = toMatchExpression("common")!;
  expect(new Set(searchCandidates(store.index, match, { archived: "false" }))).toEqual(new Set([old.conversationId, middle.conversationId, recent.conversationId]));
  // The newest item matches come first: a limit of one keeps only the latest conversation's.
  expect(searchCandidates(store.index, match, { archived: "false" }, 1)).toEqual([recent.conversationId]);
});

it("search results keep list order, filters, totals and title matches", async () => {
  const a = await createConversation(store, { title: "zebra notes", texts: ["first"] });
  const b = await createConversation(store, { title: "other", texts: ["a zebra crossing"] });
  await createConversation(store, { title: "unrelated", texts: ["nothing here"] });
  await appendExchange(store, a, "later message");
  const found = list({ q: "zeb" });
  expect(found.rows.map((row) => row.id)).toEqual([a.conversationId, b.conversationId]);
  expect(found.total).toBe(2);
  expect(list({ q: "zeb", sort: "updated", direction: "asc" }).rows.map((row) => row.id)).toEqual([b.conversationId, a.conversationId]);
  expect(list({ q: "zeb", limit: 1, offset: 1 }).rows.map((row) => row.id)).toEqual([b.conversationId]);
  expect(list({ q: "zeb", archived: "true" })).toEqual({ rows: [], total: 0 });
  expect(list({ q: "giraffe" })).toEqual({ rows: [], total: 0 });
  expect(list({ q: "!!" })).toEqual({ rows: [], total: 0 });
});

it("list totals follow every write, from this connection and from another", async () => {
  await createConversation(store, { title: "one", texts: ["x"] });
  expect(list().total).toBe(1);
  expect(list({ archived: "all" }).total).toBe(1);
  const second = await createConversation(store, { title: "two", texts: ["y"] });
  expect(list().total).toBe(2);
  // Another connection (a CLI beside the server) changes the index: data_version moves.
  const other = new Database(store.paths.database);
  other.prepare("UPDATE conversations SET archived = 1 WHERE id = ?").run(second.conversationId);
  other.close();
  expect(list().total).toBe(1);
  expect(list({ archived: "true" }).total).toBe(1);
  expect(list({ archived: "all" }).total).toBe(2);
});

it("the list's filters apply before the candidate limit: an archived match behind newer ones is found", async () => {
  const archived = await createConversation(store, { title: "kept", texts: ["common in an archived one"] });
  const newer = await createConversation(store, { title: "fresh", texts: ["common and newer"] });
  store.index.$client.prepare("UPDATE conversations SET archived = 1 WHERE id = ?").run(archived.conversationId);
  const match = toMatchExpression("common")!;
  expect(searchCandidates(store.index, match, { archived: "true" }, 1)).toEqual([archived.conversationId]);
  expect(searchCandidates(store.index, match, { archived: "false" }, 1)).toEqual([newer.conversationId]);
  expect(list({ q: "common", archived: "true" }).rows.map((row) => row.id)).toEqual([archived.conversationId]);
});
