import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readJsonl } from "@/lib/store/jsonl-reader";
import { sessionRecordSchema } from "@/lib/store/records";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { appendExchange, createConversation } from "./conversation-fixtures";

describe("torn lines and seq across reopen", () => {
  let temp: ReturnType<typeof makeTempHome>;
  const logs: string[] = [];
  const open = () => new Store(temp.home, { log: (message) => logs.push(message) });

  beforeEach(() => {
    temp = makeTempHome();
    logs.length = 0;
  });
  afterEach(() => temp.cleanup());

  it("skips and reports a torn last line; the next appender cuts it and carries on the seq", async () => {
    const first = open();
    const conversation = await createConversation(first, { texts: ["one"] });
    await first.close();
    const sessionFile = first.paths.session(conversation.conversationId, conversation.rootSessionId);
    const before = fs.readFileSync(sessionFile);
    // A crash mid-write: half of the next record, no newline.
    fs.appendFileSync(sessionFile, '{"v":1,"seq":5,"at":"2025-01-01T00:00:00.000Z","type":"item.prog');

    const read = readJsonl(sessionFile, sessionRecordSchema);
    expect(read.records).toHaveLength(4);
    expect(read.torn).toEqual({ line: 5, reason: "the last line is incomplete" });
    expect(read.goodBytes).toBe(before.length);

    const second = open();
    await appendExchange(second, conversation, "two");
    await second.close();
    expect(logs.some((line) => line.includes(sessionFile) && line.includes("torn"))).toBe(true);

    const repaired = readJsonl(sessionFile, sessionRecordSchema);
    expect(repaired.torn).toBeNull();
    expect(repaired.invalid).toEqual([]);
    expect(repaired.records.map(({ record }) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fs.readFileSync(sessionFile).subarray(0, before.length).equals(before)).toBe(true);
  });

  it("continues each file's seq after the store is closed and reopened", async () => {
    const first = open();
    const conversation = await createConversation(first, { texts: ["one", "two"] });
    const metadataSeq = first.readMetadata(conversation.conversationId).records.at(-1)!.record.seq;
    await first.close();

    const second = open();
    const record = await second.appendMetadata(conversation.conversationId, { type: "conversation.updated", title: "renamed" });
    expect(record.seq).toBe(metadataSeq + 1);
    const session = await second.appendSession(conversation.conversationId, conversation.rootSessionId, {
      type: "item.progress",
      itemId: conversation.messageIds[0],
      text: "edited",
    });
    expect(session.seq).toBe(9);
    const indexed = second.index.$client
      .prepare(`SELECT metadata_seq FROM conversations WHERE id = ?`)
      .get(conversation.conversationId) as { metadata_seq: number };
    expect(indexed.metadata_seq).toBe(metadataSeq + 1);
    await second.close();
    expect(logs).toEqual([]);
  });
});
