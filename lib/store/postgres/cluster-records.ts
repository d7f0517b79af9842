import { AtriumError } from "../../errors";
import type { JsonlReadResult } from "../jsonl-reader";
import type { MetadataRecord, MetadataRecordBody, SessionRecord, SessionRecordBody } from "../records";
import type { NewRecord, StoreCluster } from "../store-cluster";
import type { ClusterNode } from "./cluster-node";
import { giveBackCreationKey } from "./creation-keys";
import type { IndexReplica } from "./index-replica";
import { deleteCreationKeyRow } from "./index-row-write";
import { LeaseLostError } from "./postgres-record-store";

const METADATA = "metadata";

/** The records of one conversation this node holds, as the database has them (only this node writes them meanwhile). */
interface Loaded {
  metadata: MetadataRecord[];
  sessions: Map<string, SessionRecord[]>;
}

/**
 * The Store's records on a node of a cluster (DESIGN §10c). `load` takes the conversation's lease
 * and reads its records, so its owner is then built (and reads) synchronously as from files;
 * every append goes through the fenced PostgresRecordStore (group commit), then into this node's
 * index (IndexReplica) and into the loaded records, before it resolves.
 */
export class ClusterRecords implements StoreCluster {
  private readonly loaded = new Map<string, Loaded>();
  private index: IndexReplica | null = null;

  constructor(
    private readonly node: ClusterNode,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** The node's index replica, made once the Store (whose index it writes) exists. */
  replicateInto(replica: IndexReplica): void {
    this.index = replica;
  }

  private get replica(): IndexReplica {
    if (!this.index) throw new Error("the cluster's index replica is not started");
    return this.index;
  }

  /** Whether the conversation exists (created, not deleted) in the database. */
  async exists(conversationId: string): Promise<boolean> {
    const rows = await this.node.pool.query<{ live: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM atrium_records WHERE conversation_id = $1 AND stream = 'metadata' AND seq = 1)
          AND NOT EXISTS (SELECT 1 FROM atrium_records WHERE conversation_id = $1 AND stream = 'metadata' AND record->>'type' = 'conversation.deleted') AS live`,
      [conversationId],
    );
    return rows.rows[0]?.live === true;
  }

  /**
   * The conversation's lease (LeaseHeldError while another node holds it) and its records, read
   * after the lease is taken, so no write of a former holder can follow them. `taken`: the lease
   * was not this node's before (a take-over: its open turns are closed as after a crash).
   */
  async load(conversationId: string): Promise<{ taken: boolean }> {
    const taken = this.node.keeper.lease(conversationId) === null;
    await this.node.keeper.acquire(conversationId);
    if (taken || !this.loaded.has(conversationId)) {
      const source = await this.node.records.readAll(conversationId);
      this.loaded.set(conversationId, source);
    }
    return { taken };
  }

  isLoaded(conversationId: string): boolean {
    return this.loaded.has(conversationId) && this.node.keeper.lease(conversationId) !== null;
  }

  /** The conversation's records are no longer this node's to keep (lease lost or handed back). */
  forget(conversationId: string): void {
    this.loaded.delete(conversationId);
  }

  /**
   * A record written goes into the loaded records unless they have it already (the lease was lost
   * meanwhile and taken again: its records read in whole after the write committed), and into the
   * index unless the conversation was let go meanwhile (its next read-in catches the index up).
   */
  async appendMetadata(conversationId: string, body: MetadataRecordBody): Promise<MetadataRecord> {
    const held = this.loaded.has(conversationId);
    const record = await fenced(conversationId, this.node.records.appendMetadata(conversationId, body), this.log);
    const loaded = this.loaded.get(conversationId);
    if (loaded) pushNew(loaded.metadata, record);
    if (loaded || !held) await this.replica.applyWritten(conversationId, [{ stream: METADATA, record }]);
    return record;
  }

  async appendSession(conversationId: string, sessionId: string, body: SessionRecordBody): Promise<SessionRecord> {
    const held = this.loaded.has(conversationId);
    const record = await fenced(conversationId, this.node.records.appendSession(conversationId, sessionId, body), this.log);
    const loaded = this.loaded.get(conversationId);
    if (loaded) pushTo(loaded.sessions, sessionId, record);
    if (loaded || !held) await this.replica.applyWritten(conversationId, [{ stream: sessionId, record }]);
    return record;
  }

  readMetadata(conversationId: string): JsonlReadResult<MetadataRecord> {
    return readResult(this.records(conversationId).metadata);
  }

  readSession(conversationId: string, sessionId: string): JsonlReadResult<SessionRecord> {
    return readResult(this.records(conversationId).sessions.get(sessionId) ?? []);
  }

  async create(conversationId: string, records: NewRecord[]): Promise<void> {
    await this.node.keeper.acquire(conversationId);
    let written: Array<Record<string, unknown>>;
    try {
      written = await fenced(conversationId, this.node.records.appendAll(conversationId, records, creationClaim(records)), this.log);
    } catch (error) {
      // Nothing of it was written (a key another creation holds, a refused write): its lease goes back at once.
      await this.node.keeper.release(conversationId).catch(() => undefined);
      throw error;
    }
    const entries = written.map((record, index) => ({ stream: records[index]!.stream, record: record as MetadataRecord | SessionRecord }));
    const loaded: Loaded = { metadata: [], sessions: new Map() };
    for (const { stream, record } of entries) {
      if (stream === METADATA) loaded.metadata.push(record as MetadataRecord);
      else pushTo(loaded.sessions, stream, record as SessionRecord);
    }
    this.loaded.set(conversationId, loaded);
    await this.replica.applyWritten(conversationId, entries);
  }

  async forgetCreation(conversationId: string): Promise<void> {
    await giveBackCreationKey(this.node.pool, conversationId);
    await deleteCreationKeyRow(this.node.pool, conversationId);
  }

  async retire(conversationId: string): Promise<void> {
    if (!(await this.exists(conversationId))) return;
    if (this.node.keeper.lease(conversationId) === null) await this.node.keeper.acquire(conversationId);
    await this.appendMetadata(conversationId, { type: "conversation.deleted", conversationId });
  }

  private records(conversationId: string): Loaded {
    const loaded = this.loaded.get(conversationId);
    if (!loaded) throw new AtriumError("node_unavailable", `conversation ${conversationId} is not loaded on this node; retry the request`);
    return loaded;
  }
}

/** The requestKey a new conversation's first record carries (creation, fork), claimed with its records. */
function creationClaim(records: NewRecord[]): { requestKey: string; requestHash: string | null } | undefined {
  const created = records.find((record) => record.stream === METADATA && record.body.type === "conversation.created")?.body as
    | { requestKey?: string; requestHash?: string }
    | undefined;
  return created?.requestKey ? { requestKey: created.requestKey, requestHash: created.requestHash ?? null } : undefined;
}

function pushTo(sessions: Map<string, SessionRecord[]>, sessionId: string, record: SessionRecord): void {
  const items = sessions.get(sessionId) ?? [];
  pushNew(items, record);
  sessions.set(sessionId, items);
}

/** Appends a record the list does not have yet (records are kept in seq order, one per seq). */
function pushNew<R extends { seq: number }>(records: R[], record: R): void {
  const last = records[records.length - 1];
  if (!last || last.seq < record.seq) records.push(record);
}

function readResult<R extends { seq: number }>(records: R[]): JsonlReadResult<R> {
  return { records: records.map((record) => ({ record, endOffset: record.seq })), goodBytes: 0, torn: null, invalid: [] };
}

/** A write the database refused for the lease's sake answers node_unavailable (the owner is being stopped). */
async function fenced<T>(conversationId: string, writing: Promise<T>, log: (message: string) => void): Promise<T> {
  try {
    return await writing;
  } catch (error) {
    if (error instanceof LeaseLostError) {
      log(`conversation ${conversationId}: a write was refused (${error.message})`);
      throw new AtriumError("node_unavailable", `this node no longer holds conversation ${conversationId}; retry the request`, { cause: error });
    }
    throw error;
  }
}
