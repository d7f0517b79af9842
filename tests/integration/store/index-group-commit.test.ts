import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Store } from "@/lib/store/store";
import { HeldWritesFs } from "../../support/held-writes-fs";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";
import { createConversation, indexedItems, userMessageRecord, type BuiltConversation } from "./conversation-fixtures";

/**
 * Issue 25's group commit on a real Store (real files, real SQLite): the index updates of records
 * flushed in one turn of the event loop share one transaction. When that transaction fails as a
 * whole, every conversation of it answers the real cause and catches up from its files.
 */
describe("index group commit", () => {
  let temp: ReturnType<typeof makeTempHome>;
  let faults: HeldWritesFs;
  let store: Store;
  beforeEach(() => {
    temp = makeTempHome();
    faults = new HeldWritesFs();
    store = new Store(temp.home, { log: () => {}, fs: faults });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  const message = (conversation: BuiltConversation, text: string) => userMessageRecord(store, conversation, text);
  const texts = (conversation: BuiltConversation) => indexedItems(store, conversation.conversationId).map((row) => row.text);

  /** One record to each conversation, their writes answering in the same turn of the event loop. */
  async function sameTick(conversations: BuiltConversation[], text: (index: number) => string): Promise<PromiseSettledResult<unknown>[]> {
    const held = faults.hold(conversations.map((conversation) => conversation.rootSessionId));
    const appends = conversations.map((conversation, index) => store.appendSession(conversation.conversationId, conversation.rootSessionId, message(conversation, text(index))));
    await held;
    faults.release();
    return Promise.allSettled(appends);
  }

  const codes = (outcomes: PromiseSettledResult<unknown>[]) =>
    outcomes.map((outcome) => (outcome.status === "rejected" ? (outcome.reason as { code?: string }).code : "ok"));
  const messages = (outcomes: PromiseSettledResult<unknown>[]) => outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason?.message as string);

  it("a transaction SQLite rolled back itself (a real SQLITE_FULL) answers storage_full for every record of it, and both catch up", async () => {
    const a = await createConversation(store, { texts: ["before a"] });
    const b = await createConversation(store, { texts: ["before b"] });
    const client = store.index.$client;
    const pages = client.pragma("page_count", { simple: true }) as number;
    // The database may not grow: the next page it needs is refused with SQLITE_FULL, and SQLite rolls the whole transaction back.
    client.pragma(`max_page_count = ${pages}`);
    const outcomes = await sameTick([a, b], (index) => `${"big ".repeat(40_000)}${index}`);
    expect(codes(outcomes)).toEqual(["storage_full", "storage_full"]);
    for (const text of messages(outcomes)) expect(text).toContain("SQLITE_FULL");
    expect(store.catchUp.isStale(a.conversationId) && store.catchUp.isStale(b.conversationId)).toBe(true);
    expect(client.inTransaction).toBe(false);

    client.pragma("max_page_count = 1073741823");
    await waitUntil(() => !store.catchUp.isStale(a.conversationId) && !store.catchUp.isStale(b.conversationId), "both conversations to catch up from their files", 15_000);
    expect(texts(a).at(-1)?.endsWith("0")).toBe(true);
    expect(texts(b).at(-1)?.endsWith("1")).toBe(true);
  });

  it("the fault seam fails the real COMMIT; a cause that is not the disk's still marks every conversation of the batch stale, and they catch up", async () => {
    const a = await createConversation(store, { texts: ["before a"] });
    const b = await createConversation(store, { texts: ["before b"] });
    faults.inject({ operation: "index-commit", code: "SQLITE_BUSY", times: 1 });
    const outcomes = await sameTick([a, b], (index) => `in the failed batch ${index}`);
    expect(faults.fired).toBe(1);
    expect(codes(outcomes)).toEqual(["storage_error", "storage_error"]);
    for (const text of messages(outcomes)) expect(text).toContain("SQLITE_BUSY");
    expect(store.catchUp.isStale(a.conversationId) && store.catchUp.isStale(b.conversationId)).toBe(true);
    expect(texts(a)).not.toContain("in the failed batch 0");

    await waitUntil(() => !store.catchUp.isStale(a.conversationId) && !store.catchUp.isStale(b.conversationId), "both conversations to catch up from their files", 15_000);
    expect(texts(a)).toContain("in the failed batch 0");
    expect(texts(b)).toContain("in the failed batch 1");
  });

  it("a unit of the batch that fails fails alone: the other conversation is indexed at once, the failing one catches up", async () => {
    const a = await createConversation(store, { texts: ["before a"] });
    const b = await createConversation(store, { texts: ["before b"] });
    faults.inject({ operation: "index", code: "SQLITE_FULL", times: 1 });
    const outcomes = await sameTick([a, b], (index) => `same tick ${index}`);
    // The first update of the batch is refused: whichever write came back first.
    expect([...codes(outcomes)].sort()).toEqual(["ok", "storage_full"]);
    const refused = codes(outcomes).indexOf("storage_full");
    const [failing, indexed] = refused === 0 ? [a, b] : [b, a];
    expect(texts(indexed)).toContain(`same tick ${1 - refused}`);
    expect(store.catchUp.isStale(indexed.conversationId)).toBe(false);
    expect(store.catchUp.isStale(failing.conversationId)).toBe(true);
    expect(texts(failing)).not.toContain(`same tick ${refused}`);
    await waitUntil(() => !store.catchUp.isStale(failing.conversationId), "the failing conversation to catch up from its files", 15_000);
    expect(texts(failing)).toContain(`same tick ${refused}`);
  });

  it("closing a conversation applies its index updates still waiting, so a removal after it is not undone by them", async () => {
    const a = await createConversation(store, { texts: ["before a"] });
    const held = faults.hold([a.rootSessionId]);
    const pending = store.appendSession(a.conversationId, a.rootSessionId, message(a, "written as the conversation goes"));
    await held;
    // A close under way (an eviction, an earlier close) has taken the appender out: the next close finds none to wait for.
    const firstClose = store.closeConversation(a.conversationId);
    faults.release();
    // Microtasks only: the record comes back and queues its index update, and no turn of the event loop (the group's setImmediate) passes.
    for (let hop = 0; hop < 100; hop++) await Promise.resolve();
    const retired = store.retireConversation(a.conversationId);
    await Promise.all([firstClose, retired, pending.catch(() => undefined)]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const count = (sql: string) => (store.index.$client.prepare(sql).get(a.conversationId) as { count: number }).count;
    expect(count("SELECT count(*) AS count FROM items WHERE conversation_id = ?"), "item rows of the retired conversation").toBe(0);
    expect(count("SELECT count(*) AS count FROM conversations WHERE id = ?")).toBe(0);
  });
});
