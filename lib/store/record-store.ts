import type { MetadataRecord, MetadataRecordBody, SessionRecord, SessionRecordBody } from "./records";

/**
 * What a conversation's owner writes through (DESIGN §2, §10c): its metadata log and its
 * sessions' logs, each record numbered by the backend (seq = last + 1 per stream) and durable
 * when the promise resolves. Two backends: the JSONL files + SQLite index (`Store`, the default)
 * and PostgreSQL (`PostgresRecordStore`, where every append carries the owner's lease epoch).
 */
export interface RecordStore {
  appendMetadata(conversationId: string, body: MetadataRecordBody): Promise<MetadataRecord>;
  /**
   * `flushed`, when the backend can tell, is called once the record is durable and before it is
   * indexed (a backend that cannot tell never calls it: OwnerRecords then calls it on resolve).
   */
  appendSession(conversationId: string, sessionId: string, body: SessionRecordBody, flushed?: (record: SessionRecord) => void): Promise<SessionRecord>;
}
