import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { catchUpIndex } from "@/lib/store/ingest";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation, indexedItems } from "./conversation-fixtures";

describe("catching the index up with the files", () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(() => temp.cleanup());

  it("re-ingests lines that reached the JSONL files but never the index (a crash between the two)", async () => {
    const first = new Store(temp.home, { log: () => {} });
    const conversation = await createConversation(first, { texts: ["before the crash"] });
    const untouched = await createConversation(first, { texts: ["nothing happens here"] });
    await first.close();

    // What a crash right after the flush leaves: lines on disk the index never saw.
    const { conversationId, rootSessionId } = conversation;
    const at = new Date().toISOString();
    const itemId = first.newId();
    fs.appendFileSync(
      first.paths.session(conversationId, rootSessionId),
      `${JSON.stringify({ v: 1, seq: 5, at, type: "item.created", item: { id: itemId, sessionId: rootSessionId, turnId: null, kind: "user_message", status: "completed", text: "written after the crash about walruses", createdAt: at } })}\n`,
    );
    const metadataSeq = first.readMetadata(conversationId).records.length;
    fs.appendFileSync(
      first.paths.metadata(conversationId),
      `${JSON.stringify({ v: 1, seq: metadataSeq + 1, at, type: "conversation.updated", title: "Renamed in the crash" })}\n`,
    );

    const second = new Store(temp.home, { log: () => {} });
    try {
      expect(indexedItems(second, conversationId).map((row) => row.text)).not.toContain("written after the crash about walruses");
      const outcomes = catchUpIndex(second);
      expect(outcomes).toEqual([{ status: "indexed", conversationId, records: 10, problems: [] }]);
      expect(outcomes.map((outcome) => outcome.conversationId)).not.toContain(untouched.conversationId);

      expect(indexedItems(second, conversationId).at(-1)).toEqual({
        kind: "user_message",
        status: "completed",
        text: "written after the crash about walruses",
      });
      const client = second.index.$client;
      expect(client.prepare(`SELECT title FROM conversations WHERE id = ?`).get(conversationId)).toEqual({ title: "Renamed in the crash" });
      const found = client.prepare(`SELECT conversation_id FROM item_fts WHERE item_fts MATCH 'walruses'`).all();
      expect(found).toEqual([{ conversation_id: conversationId }]);
      expect(catchUpIndex(second)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
