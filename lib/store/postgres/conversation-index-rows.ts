import type { PoolClient } from "pg";
import { openIndex, type IndexDatabase } from "../database";
import { IndexWriter } from "../index-writer";
import { metadataRecordSchema, sessionRecordSchema } from "../records";
import { RecordProofs } from "../record-proofs";
import { IndexRowCapture } from "./index-row-capture";
import { deleteConversationRows, writeIndexChanges } from "./index-row-write";
import { lineOrder } from "./postgres-record-store";

/**
 * A whole conversation's index rows, derived from its records in the cluster's database by the
 * one IndexWriter (on a scratch SQLite index in memory, with the cluster's record key, so decisions
 * verify as on a node) and written into the atrium_index_* tables in place of any it had, through
 * `client`: in the transaction that copies its records (`atrium migrate`), so they commit together.
 */
export class ConversationIndexRows {
  private readonly index: IndexDatabase;
  private readonly writer: IndexWriter;
  private readonly capture: IndexRowCapture;

  constructor(home: string, recordKey: Buffer) {
    this.index = openIndex(":memory:");
    this.writer = new IndexWriter(this.index.$client, new RecordProofs(home, recordKey));
    this.capture = new IndexRowCapture(this.index.$client);
  }

  async write(client: PoolClient, conversationId: string): Promise<void> {
    const rows = await client.query<{ stream: string; seq: string; record: Record<string, unknown> }>(
      "SELECT stream, seq, record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream <> 'metadata', stream, seq",
      [conversationId],
    );
    let changes: ReturnType<IndexRowCapture["capture"]> = [];
    this.writer.transaction(() => {
      changes = this.capture.capture(() => {
        for (const row of rows.rows) {
          const record = lineOrder(row.record);
          if (row.stream === "metadata") this.writer.applyMetadata(conversationId, metadataRecordSchema.parse(record), Number(row.seq));
          else this.writer.applySession(conversationId, row.stream, sessionRecordSchema.parse(record), Number(row.seq));
        }
      });
      // The scratch index keeps nothing: its rows are in `changes`.
      this.writer.removeConversation(conversationId);
    });
    await deleteConversationRows(client, conversationId);
    await writeIndexChanges(client, changes);
  }

  close(): void {
    this.index.$client.close();
  }
}
