import type { JsonlReadResult } from "./jsonl-reader";
import type { MetadataRecord, MetadataRecordBody, SessionRecord, SessionRecordBody } from "./records";

/** One record of a conversation being created, in the order it is written ("metadata" or a session id). */
export interface NewRecord {
  stream: string;
  body: MetadataRecordBody | SessionRecordBody;
}

/**
 * Where a node of a cluster (DESIGN §10c) keeps its conversations' records instead of JSONL
 * files: the Store hands every append and read of records to it. Appends are fenced by this
 * node's lease and indexed into the node's SQLite index before they resolve; reads answer from
 * the records of the conversations this node has loaded (`load`, before an owner is built), so
 * the owner's synchronous reads stay synchronous.
 */
export interface StoreCluster {
  appendMetadata(conversationId: string, body: MetadataRecordBody): Promise<MetadataRecord>;
  appendSession(conversationId: string, sessionId: string, body: SessionRecordBody): Promise<SessionRecord>;
  /** Throws not_found for a conversation this node has not loaded (or that does not exist). */
  readMetadata(conversationId: string): JsonlReadResult<MetadataRecord>;
  readSession(conversationId: string, sessionId: string): JsonlReadResult<SessionRecord>;
  /** A new conversation: its lease taken, its first records written in one statement, then indexed. */
  create(conversationId: string, records: NewRecord[]): Promise<void>;
}
