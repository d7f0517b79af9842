import type { Pool, PoolClient } from "pg";
import type { FoldSource } from "../conversation-fold";
import type { RecordStore } from "../record-store";
import {
  metadataRecordSchema,
  sessionRecordSchema,
  type MetadataRecord,
  type MetadataRecordBody,
  type SessionRecord,
  type SessionRecordBody,
} from "../records";
import { claimCreationKey } from "./creation-keys";
import type { Lease } from "./leases";
import { LEASE_REFUSED } from "./schema";
import { inTransaction } from "./transaction";
import { databaseJson } from "./database-json";

/** The database refused a write: the writer's lease is stale (another node took it), expired or not held. */
export class LeaseLostError extends Error {
  readonly code = "lease_lost";
  constructor(
    readonly conversationId: string,
    readonly epoch: number | null,
  ) {
    super(epoch === null ? `this node holds no lease on conversation ${conversationId}` : `the lease on conversation ${conversationId} at epoch ${epoch} is lost`);
  }
}

const METADATA = "metadata";
/** At most this many records in one statement (a burst larger than this takes several). */
const MAX_BATCH = 500;

interface Pending {
  stream: string;
  at: string;
  body: object;
  resolve: (record: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

/**
 * What writes a conversation's index rows into the cluster's atrium_index_* tables with its
 * records (issue 24): `write` runs in the transaction that appended them, after they are numbered;
 * `undo` when that transaction then failed (its records, and the rows written, are not there).
 */
export interface IndexRowsHook {
  write(client: PoolClient, conversationId: string, written: Array<{ stream: string; record: Record<string, unknown> }>): Promise<void>;
  undo(conversationId: string): void;
}

/** A conversation's appends waiting for the statement under way to end. */
interface Batch {
  queued: Pending[];
  writing: boolean;
}

/** A record read back in the order of a JSONL line ({v, seq, at, type, …}) and checked as a line read from a file is. */
export function lineOrder(record: Record<string, unknown>): Record<string, unknown> {
  return { v: record.v, seq: record.seq, at: record.at, type: record.type, ...record };
}

/**
 * The PostgreSQL backend of the owner's record store (DESIGN §10c): the same JSON records as the
 * JSONL files, one row per (conversation, stream, seq). Every append goes through
 * atrium_append_records with the lease this node holds on the conversation, so the database
 * refuses it once another node has taken the lease (LeaseLostError). Group commit, as the JSONL
 * appender does: the appends a conversation's owner makes while a statement is under way (or in
 * one tick) are written together in the next one, in the order they were made. `leaseOf` answers the
 * lease the node holds now (kept by whoever takes and renews it).
 */
export class PostgresRecordStore implements RecordStore {
  private readonly batches = new Map<string, Batch>();
  private indexRows: IndexRowsHook | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly leaseOf: (conversationId: string) => Lease | null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** From now on every batch's index rows are written with its records, in its transaction (a node's replica, once it exists). */
  writeIndexRows(hook: IndexRowsHook): void {
    this.indexRows = hook;
  }

  /** Checked as the line it will be before it is written (the database numbers it), and as the line it is after. */
  async appendMetadata(conversationId: string, body: MetadataRecordBody): Promise<MetadataRecord> {
    const at = this.now().toISOString();
    metadataRecordSchema.parse({ v: 1, seq: 1, at, ...body });
    return metadataRecordSchema.parse(await this.append(conversationId, METADATA, at, body));
  }

  async appendSession(conversationId: string, sessionId: string, body: SessionRecordBody): Promise<SessionRecord> {
    const at = this.now().toISOString();
    sessionRecordSchema.parse({ v: 1, seq: 1, at, ...body });
    return sessionRecordSchema.parse(await this.append(conversationId, sessionId, at, body));
  }

  /** One stream's records in seq order (metadata, or a session's items). */
  async readStream(conversationId: string, stream: string): Promise<Array<Record<string, unknown>>> {
    const rows = await this.pool.query<{ record: Record<string, unknown> }>(
      "SELECT record FROM atrium_records WHERE conversation_id = $1 AND stream = $2 ORDER BY seq",
      [conversationId, stream],
    );
    return rows.rows.map((row) => lineOrder(row.record));
  }

  async readMetadata(conversationId: string): Promise<MetadataRecord[]> {
    return (await this.readStream(conversationId, METADATA)).map((record) => metadataRecordSchema.parse(record));
  }

  async readSession(conversationId: string, sessionId: string): Promise<SessionRecord[]> {
    return (await this.readStream(conversationId, sessionId)).map((record) => sessionRecordSchema.parse(record));
  }

  /** Every record of a conversation in one query: its metadata, and each session's items, in seq order. */
  async readAll(conversationId: string): Promise<{ metadata: MetadataRecord[]; sessions: Map<string, SessionRecord[]> }> {
    const rows = await this.pool.query<{ stream: string; record: Record<string, unknown> }>(
      "SELECT stream, record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream, seq",
      [conversationId],
    );
    const metadata: MetadataRecord[] = [];
    const sessions = new Map<string, SessionRecord[]>();
    for (const row of rows.rows) {
      if (row.stream === METADATA) metadata.push(metadataRecordSchema.parse(lineOrder(row.record)));
      else {
        const items = sessions.get(row.stream) ?? [];
        items.push(sessionRecordSchema.parse(lineOrder(row.record)));
        sessions.set(row.stream, items);
      }
    }
    return { metadata, sessions };
  }

  /**
   * Every record of a conversation read in one query, as the synchronous source foldConversation
   * reads (so an owner is built from the database's records exactly as from its files).
   */
  async foldSource(conversationId: string): Promise<FoldSource> {
    const rows = await this.pool.query<{ stream: string; record: Record<string, unknown> }>(
      "SELECT stream, record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream, seq",
      [conversationId],
    );
    const streams = new Map<string, Array<Record<string, unknown>>>();
    for (const row of rows.rows) {
      const records = streams.get(row.stream) ?? [];
      records.push(lineOrder(row.record));
      streams.set(row.stream, records);
    }
    return {
      readMetadata: () => ({ records: (streams.get(METADATA) ?? []).map((record) => ({ record: metadataRecordSchema.parse(record) })) }),
      readSession: (_, sessionId) => ({ records: (streams.get(sessionId) ?? []).map((record) => ({ record: sessionRecordSchema.parse(record) })) }),
    };
  }

  /**
   * A new conversation's first records in one statement (creation, fork: DESIGN §10c), under the
   * lease just taken; each checked as the line it will be and as the line it is. With `claim`
   * (its requestKey), the key is claimed in the same transaction: CreationKeyClaimedError, and
   * nothing written, when another creation holds it.
   */
  async appendAll(
    conversationId: string,
    entries: Array<{ stream: string; body: object }>,
    claim?: { requestKey: string; requestHash: string | null },
  ): Promise<Array<Record<string, unknown>>> {
    const at = this.now().toISOString();
    const schemaOf = (stream: string) => (stream === METADATA ? metadataRecordSchema : sessionRecordSchema);
    for (const entry of entries) schemaOf(entry.stream).parse({ v: 1, seq: 1, at, ...entry.body });
    const pending = entries.map((entry) => ({ ...entry, at, resolve: () => undefined, reject: () => undefined }));
    const written = await this.writeBatch(conversationId, pending, claim);
    return written.map((record, index) => schemaOf(entries[index]!.stream).parse(lineOrder(record)));
  }

  /** Queued into the conversation's next batch; resolves once the batch is committed. */
  private append(conversationId: string, stream: string, at: string, body: object): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      let batch = this.batches.get(conversationId);
      if (!batch) {
        batch = { queued: [], writing: false };
        this.batches.set(conversationId, batch);
      }
      batch.queued.push({ stream, at, body, resolve, reject });
      if (!batch.writing) {
        batch.writing = true;
        // Appends made in the same tick (a burst) go in one batch.
        queueMicrotask(() => void this.writeBatches(conversationId, batch));
      }
    });
  }

  /** Writes the queued appends, one batch at a time; appends queued meanwhile go in the next batch. */
  private async writeBatches(conversationId: string, batch: Batch): Promise<void> {
    while (batch.queued.length > 0) {
      const pending = batch.queued.splice(0, MAX_BATCH);
      try {
        const written = await this.writeBatch(conversationId, pending);
        pending.forEach((append, index) => append.resolve(lineOrder(written[index]!)));
      } catch (error) {
        for (const append of pending) append.reject(error);
      }
    }
    batch.writing = false;
    this.batches.delete(conversationId);
  }

  /**
   * One batch in one statement; in a transaction when a creation's key is claimed with it, or when
   * its index rows are written with it (IndexRowsHook: undone if the transaction fails after them).
   */
  private async writeBatch(conversationId: string, pending: Pending[], claim?: { requestKey: string; requestHash: string | null }): Promise<Array<Record<string, unknown>>> {
    const hook = this.indexRows;
    if (!hook && !claim) return this.appendRecords(this.pool, conversationId, pending);
    let indexed = false;
    try {
      return await inTransaction(this.pool, async (client) => {
        if (claim) await claimCreationKey(client, conversationId, claim.requestKey, claim.requestHash);
        const written = await this.appendRecords(client, conversationId, pending);
        if (hook) {
          indexed = true;
          await hook.write(client, conversationId, pending.map((append, index) => ({ stream: append.stream, record: written[index]! })));
        }
        return written;
      });
    } catch (error) {
      if (indexed) hook!.undo(conversationId);
      throw error;
    }
  }

  private async appendRecords(db: Pool | PoolClient, conversationId: string, pending: Pending[]): Promise<Array<Record<string, unknown>>> {
    const lease = this.leaseOf(conversationId);
    if (!lease) throw new LeaseLostError(conversationId, null);
    try {
      const result = await db.query<{ records: Array<Record<string, unknown>> }>(
        "SELECT atrium_append_records($1, $2, $3, $4::jsonb) AS records",
        [conversationId, lease.nodeId, lease.epoch, databaseJson(pending.map(({ stream, at, body }) => ({ stream, at, body })))],
      );
      return result.rows[0]!.records;
    } catch (error) {
      if ((error as { code?: unknown }).code === LEASE_REFUSED) throw new LeaseLostError(conversationId, lease.epoch);
      throw error;
    }
  }
}
