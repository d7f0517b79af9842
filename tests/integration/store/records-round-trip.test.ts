import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { metadataRecordSchema, sessionRecordSchema } from "@/lib/store/records";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation } from "./conversation-fixtures";
import { appendEveryRecordType } from "./every-record-type";

const typesOf = (schema: typeof metadataRecordSchema | typeof sessionRecordSchema) =>
  schema.options.map((option) => option.shape.type.value).sort();

describe("JSONL records", () => {
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

  it("reads back every record type exactly as it was appended, seq counting from 1 per file", async () => {
    const written = await appendEveryRecordType(store);
    const deleted = await createConversation(store);
    const tombstone = await store.appendMetadata(deleted.conversationId, {
      type: "conversation.deleted",
      conversationId: deleted.conversationId,
    });

    const metadata = store.readMetadata(written.conversationId);
    expect(metadata.torn).toBeNull();
    expect(metadata.invalid).toEqual([]);
    expect(metadata.records.map(({ record }) => record)).toEqual(written.metadata);
    expect(metadata.records.map(({ record }) => record.seq)).toEqual(written.metadata.map((_, index) => index + 1));
    expect(store.readMetadata(deleted.conversationId).records.at(-1)?.record).toEqual(tombstone);

    for (const [sessionId, records] of written.sessions) {
      const session = store.readSession(written.conversationId, sessionId);
      expect(session.torn).toBeNull();
      expect(session.records.map(({ record }) => record)).toEqual(records);
      expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
    }

    const seenMetadataTypes = new Set([...written.metadata.map((record) => record.type), tombstone.type]);
    expect([...seenMetadataTypes].sort()).toEqual(typesOf(metadataRecordSchema));
    const seenSessionTypes = new Set([...written.sessions.values()].flat().map((record) => record.type));
    expect([...seenSessionTypes].sort()).toEqual(typesOf(sessionRecordSchema));
  });

  it("indexes what it appends: the conversation, its sessions, turns and searchable text", async () => {
    const written = await appendEveryRecordType(store, "Zebra files");
    const client = store.index.$client;
    const conversation = client.prepare(`SELECT title, archived, protected, cwd FROM conversations WHERE id = ?`).get(written.conversationId);
    expect(conversation).toEqual({ title: "Zebra files, renamed", archived: 1, protected: 1, cwd: "/srv/other" });
    expect(client.prepare(`SELECT count(*) AS n FROM sessions WHERE conversation_id = ?`).get(written.conversationId)).toEqual({ n: 2 });
    expect(client.prepare(`SELECT status, error_code FROM turns WHERE conversation_id = ? ORDER BY started_at, id`).all(written.conversationId)).toEqual([
      { status: "completed", error_code: null },
      { status: "completed", error_code: null },
      { status: "failed", error_code: "provider_error" },
    ]);
    const hits = client
      .prepare(`SELECT items.kind FROM item_fts JOIN items ON items.rowid = item_fts.rowid WHERE item_fts MATCH 'zebra' ORDER BY items.seq`)
      .all();
    expect(hits).toEqual([{ kind: "user_message" }, { kind: "assistant_message" }]);
  });
});
