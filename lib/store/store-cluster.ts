import { AtriumError } from "../errors";
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
  /**
   * A new conversation: its lease taken, its first records written in one transaction (with the
   * claim of its requestKey, if it has one: CreationKeyClaimedError when another node's creation
   * holds the key), then indexed.
   */
  create(conversationId: string, records: NewRecord[]): Promise<void>;
  /** A creation undone (its first message could not be recorded): its requestKey is free again. */
  forgetCreation(conversationId: string): Promise<void>;
  /**
   * A conversation taken away without the owner's tombstone (an undone creation, a deletion whose
   * tombstone failed): the records cannot go (append-only), so a tombstone is written for it,
   * which takes its index rows and search rows out of the cluster's tables in the same
   * transaction and out of every node's index (nothing when it is not there, or already deleted).
   */
  retire(conversationId: string): Promise<void>;
}

/**
 * A new conversation's requestKey was claimed first by another creation (on another node, at the
 * same instant): nothing of this one was written. RequestKeys answers it with the winner's
 * conversation; were it ever to reach a client, it is a 503 to retry, whose retry is that replay.
 */
export class CreationKeyClaimedError extends AtriumError {
  readonly creationKeyClaimed = true;
  constructor(
    readonly requestKey: string,
    /** The conversation holding the key (null: its claim was given back meanwhile). */
    readonly claimedBy: string | null,
  ) {
    super("node_unavailable", `requestKey "${requestKey}" was claimed by another creation at the same moment; retry the request`);
  }
}

/** Not `instanceof`: the bundles hold separate copies of the class (see isAtriumError). */
export function isCreationKeyClaimed(error: unknown): error is CreationKeyClaimedError {
  return typeof error === "object" && error !== null && (error as { creationKeyClaimed?: unknown }).creationKeyClaimed === true;
}
