import fs from "node:fs";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reindex } from "@/lib/store/reindex";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { appendExchange, createConversation } from "./conversation-fixtures";
import { appendEveryRecordType } from "./every-record-type";
import { dumpIndex } from "./index-dump";

describe("reindex", () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(() => temp.cleanup());

  const readDump = (databasePath: string) => {
    const client = new Database(databasePath);
    try {
      return dumpIndex(client);
    } finally {
      client.close();
    }
  };

  it("rebuilds an index identical to the one the live appends built, full-text tables included", async () => {
    const store = new Store(temp.home, { log: () => {} });
    const rich = await appendEveryRecordType(store, "Zebra files");
    const parent = await createConversation(store, { title: "Parent", texts: ["first question about otters", "second"] });
    await createConversation(store, {
      title: "Fork of parent",
      texts: ["a forked question"],
      forkedFrom: { conversationId: parent.conversationId, itemId: parent.messageIds[0] },
    });
    // Interleave appends across conversations, as concurrent turns do.
    await Promise.all([appendExchange(store, parent, "third, about beavers"), appendEveryRecordType(store, "Second rich one")]);
    await store.appendMetadata(rich.conversationId, { type: "conversation.updated", title: "Zebra files, final" });
    const live = dumpIndex(store.index.$client);
    await store.close();

    expect(Object.keys(live)).toEqual(
      expect.arrayContaining(["conversations", "sessions", "turns", "items", "waiting", "approvals", "questions", "objectives", "compactions", "request_keys", "item_fts", "title_fts"]),
    );
    expect(live.conversations).toHaveLength(4);
    expect(live.item_fts.length).toBeGreaterThan(8);

    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${store.paths.database}${suffix}`, { force: true });
    const report = reindex(temp.home, { log: () => {} });
    expect(report).toMatchObject({ conversations: 4, deleted: [], skipped: [], problems: [] });

    const rebuilt = readDump(store.paths.database);
    for (const table of Object.keys(live)) expect({ table, rows: rebuilt[table] }).toEqual({ table, rows: live[table] });
    expect(Object.keys(rebuilt)).toEqual(Object.keys(live));
  });

  it("finishes a deletion that was interrupted after the tombstone, and reports what it skips", async () => {
    const store = new Store(temp.home, { log: () => {} });
    const kept = await createConversation(store, { title: "Kept" });
    const doomed = await createConversation(store, { title: "Doomed", texts: ["delete me"] });
    // The delete path appends the tombstone, drops the rows, then removes the directory: stop after the tombstone.
    await store.appendMetadata(doomed.conversationId, { type: "conversation.deleted", conversationId: doomed.conversationId });
    await store.close();
    expect(fs.existsSync(store.paths.conversation(doomed.conversationId))).toBe(true);
    const broken = store.newId();
    fs.mkdirSync(store.paths.conversation(broken));
    fs.writeFileSync(store.paths.metadata(broken), `${JSON.stringify({ v: 1, seq: 1, at: new Date().toISOString(), type: "conversation.updated", title: "orphan" })}\n`);

    const progress: Array<[number, number]> = [];
    const report = reindex(temp.home, { log: () => {}, progressEvery: 1, onProgress: (done, total) => progress.push([done, total]) });

    expect(report.deleted).toEqual([doomed.conversationId]);
    expect(report.skipped).toEqual([{ conversationId: broken, reason: "metadata.jsonl does not begin with conversation.created" }]);
    expect(report.conversations).toBe(1);
    expect(progress).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(fs.existsSync(store.paths.conversation(doomed.conversationId))).toBe(false);
    const client = new Database(store.paths.database, { readonly: true });
    try {
      expect(client.prepare(`SELECT id FROM conversations`).all()).toEqual([{ id: kept.conversationId }]);
      expect(client.prepare(`SELECT count(*) AS n FROM items WHERE conversation_id = ?`).get(doomed.conversationId)).toEqual({ n: 0 });
    } finally {
      client.close();
    }
  });
});
