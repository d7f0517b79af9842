import { afterEach, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { reindex } from "@/lib/store/reindex";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation, indexedItems, userMessageRecord, type BuiltConversation } from "./conversation-fixtures";
import { dumpIndex } from "./index-dump";

/** Issue 22: a conversation whose index fell behind its files after an index fault (IndexCatchUp). */
describe("catching a stale index up", () => {
  let temp: ReturnType<typeof makeTempHome>;
  let faults: FaultyStorageFs;
  let store: Store;
  beforeEach(() => {
    temp = makeTempHome();
    faults = new FaultyStorageFs();
    store = new Store(temp.home, { log: () => {}, fs: faults });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  const message = (conversation: BuiltConversation, text: string) => userMessageRecord(store, conversation, text);

  it("indexes a record whose flush listener throws (the error is the append's answer), and tells the listener before the index has it", async () => {
    const conversation = await createConversation(store, { texts: ["before"] });
    const { conversationId, rootSessionId } = conversation;
    const indexedWhenTold: boolean[] = [];
    const appending = store.appendSession(conversationId, rootSessionId, message(conversation, "told early"), () => {
      indexedWhenTold.push(indexedItems(store, conversationId).some((row) => row.text === "told early"));
      throw new Error("a listener's bug");
    });
    await expect(appending).rejects.toThrow("a listener's bug");
    expect(indexedWhenTold).toEqual([false]);
    // The record is on disk and in the index all the same: the index is not left behind its files unawares.
    expect(indexedItems(store, conversationId).map((row) => row.text)).toContain("told early");
    expect(store.catchUp.isStale(conversationId)).toBe(false);
    await store.appendSession(conversationId, rootSessionId, message(conversation, "after"));
    expect(indexedItems(store, conversationId).map((row) => row.text).slice(-2)).toEqual(["told early", "after"]);
  });

  it("takes concurrent appends to a stale conversation once each, and ends equal to a rebuild", async () => {
    const conversation = await createConversation(store, { texts: ["before"] });
    const { conversationId, rootSessionId } = conversation;
    faults.inject({ operation: "index", code: "SQLITE_FULL", times: 1 });
    await expect(store.appendSession(conversationId, rootSessionId, message(conversation, "refused by the index"))).rejects.toMatchObject({
      code: "storage_full",
    });
    expect(store.catchUp.isStale(conversationId)).toBe(true);

    await Promise.all(["second", "third", "fourth"].map((text) => store.appendSession(conversationId, rootSessionId, message(conversation, text))));
    expect(store.catchUp.isStale(conversationId)).toBe(false);
    expect(indexedItems(store, conversationId).map((row) => row.text).slice(-4)).toEqual(["refused by the index", "second", "third", "fourth"]);

    const live = dumpIndex(store.index.$client);
    await store.close();
    expect(reindex(temp.home, { log: () => {} }).skipped).toEqual([]);
    const client = new Database(store.paths.database);
    try {
      expect(dumpIndex(client)).toEqual(live);
    } finally {
      client.close();
    }
    store = new Store(temp.home, { log: () => {} });
  });

  it("answers a write to a conversation still stale with the fault while the index refuses, keeping the record", async () => {
    const conversation = await createConversation(store, { texts: ["before"] });
    const { conversationId, rootSessionId } = conversation;
    faults.inject({ operation: "index", code: "SQLITE_IOERR_WRITE" });
    for (const text of ["one", "two"]) {
      await expect(store.appendSession(conversationId, rootSessionId, message(conversation, text))).rejects.toMatchObject({ code: "storage_error" });
    }
    expect(store.readSession(conversationId, rootSessionId).records.slice(-2).map(({ record }) => record.type === "item.created" && record.item.text)).toEqual(["one", "two"]);
    faults.clear();
    const caughtUp: string[] = [];
    store.onIndexCaughtUp((id) => caughtUp.push(id));
    await store.appendSession(conversationId, rootSessionId, message(conversation, "three"));
    expect(caughtUp).toEqual([conversationId]);
    expect(indexedItems(store, conversationId).map((row) => row.text).slice(-3)).toEqual(["one", "two", "three"]);
  });

  it("lets a constraint error (a bug, not the disk) through as it is, marking nothing stale", async () => {
    const conversation = await createConversation(store, { texts: ["before"] });
    faults.inject({ operation: "index", code: "SQLITE_CONSTRAINT_UNIQUE", times: 1 });
    await expect(store.appendSession(conversation.conversationId, conversation.rootSessionId, message(conversation, "x"))).rejects.toMatchObject({
      code: "SQLITE_CONSTRAINT_UNIQUE",
    });
    expect(store.catchUp.isStale(conversation.conversationId)).toBe(false);
  });
});
