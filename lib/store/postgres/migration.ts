import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import type { Pool, PoolClient } from "pg";
import { canonicalJson } from "../canonical-json";
import { isId } from "../ids";
import { dataPaths } from "../paths";
import { BlobClashError, BlobStore } from "./blob-store";
import { clusterRecordKey } from "./cluster-settings";
import { ConversationIndexRows } from "./conversation-index-rows";
import { LeaseHeldError, Leases, type Lease } from "./leases";
import { readSourceConversation, type SourceConversation, type SourceFile, type SourceStream } from "./migration-source";
import { lineOrder } from "./postgres-record-store";
import { inTransaction } from "./transaction";
import { databaseJson } from "./database-json";

/** At most this many records in one atrium_append_records call. */
const BATCH = 500;

export type MigrationOutcome =
  | { status: "copied"; records: number; files: number; bytes: number }
  | { status: "up_to_date" }
  | { status: "skipped"; reason: string }
  | { status: "refused"; reason: string }
  | { status: "failed"; reason: string };

export interface MigrationProgress {
  done: number;
  total: number;
  conversationId: string;
  title: string;
  outcome: MigrationOutcome;
}

export interface MigrationReport {
  total: number;
  copied: number;
  upToDate: number;
  records: number;
  files: number;
  bytes: number;
  skipped: Array<{ conversationId: string; reason: string }>;
  refused: Array<{ conversationId: string; reason: string }>;
  /** Errors other than a refusal (a record the database would not take, a lost connection): the rest still go. */
  failed: Array<{ conversationId: string; reason: string }>;
  milliseconds: number;
}

/** The records the cluster already holds of one stream: how many, and the ones a copy is checked against. */
interface ClusterStream {
  last: number;
  records: Map<number, Record<string, unknown>>;
}

/**
 * `atrium migrate --to` (DESIGN §10c): copies every conversation of a data directory into a
 * cluster's database, records verbatim (same seq, same time) and files into its BlobStore. The
 * caller holds the data directory's lock, so nothing writes the files meanwhile.
 *
 * Idempotent and resumable: a conversation goes in whole or not at all (one transaction, under a
 * lease of its own, so no node's owner writes it meanwhile); run again, it copies only what the
 * cluster does not have yet, after checking that what it has is the same as the files (the first
 * record and the last one they share). A conversation that differs (another conversation with this
 * id, or one that went on both here and in the cluster) is refused and left as it is. Open turns
 * are copied as they are: the node that takes the conversation closes them as a copied directory's
 * (`imported`: their proofs are not the cluster's, so nothing they asked for runs).
 */
export async function migrateToCluster(home: string, pool: Pool, onProgress?: (progress: MigrationProgress) => void): Promise<MigrationReport> {
  const started = performance.now();
  const paths = dataPaths(home);
  const ids = fs.existsSync(paths.conversations)
    ? fs
        .readdirSync(paths.conversations, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && isId(entry.name))
        .map((entry) => entry.name)
        .sort()
    : [];
  const leases = new Leases(pool, `migrate-${os.hostname()}-${process.pid}`);
  const blobs = new BlobStore(pool);
  const indexRows = new ConversationIndexRows(home, await clusterRecordKey(pool));
  const report: MigrationReport = { total: ids.length, copied: 0, upToDate: 0, records: 0, files: 0, bytes: 0, skipped: [], refused: [], failed: [], milliseconds: 0 };
  try {
    for (const [index, conversationId] of ids.entries()) {
      const source = readSourceConversation(paths, conversationId);
      let outcome: MigrationOutcome;
      try {
        outcome = source.status === "ready" ? await copyConversation(pool, leases, blobs, indexRows, source) : { status: source.status, reason: source.reason };
      } catch (error) {
        outcome = { status: "failed", reason: error instanceof Error ? error.message : String(error) };
      }
      if (outcome.status === "copied") {
        report.copied += 1;
        report.records += outcome.records;
        report.files += outcome.files;
        report.bytes += outcome.bytes;
      } else if (outcome.status === "up_to_date") report.upToDate += 1;
      else report[outcome.status].push({ conversationId, reason: outcome.reason });
      onProgress?.({ done: index + 1, total: ids.length, conversationId, title: source.status === "ready" ? source.title : "", outcome });
    }
  } finally {
    indexRows.close();
  }
  report.milliseconds = Math.round(performance.now() - started);
  return report;
}

async function copyConversation(pool: Pool, leases: Leases, blobs: BlobStore, indexRows: ConversationIndexRows, source: Extract<SourceConversation, { status: "ready" }>): Promise<MigrationOutcome> {
  const { conversationId } = source;
  const missing = await recordsToCopy(pool, source);
  if ("reason" in missing) return { status: "refused", reason: missing.reason };
  const fresh = await filesToCopy(blobs, source);
  if ("reason" in fresh) return { status: "refused", reason: fresh.reason };
  if (missing.count === 0 && fresh.length === 0) return { status: "up_to_date" };
  let lease: Lease;
  try {
    lease = await leases.take(conversationId);
  } catch (error) {
    if (error instanceof LeaseHeldError) return { status: "refused", reason: `it is in use on node ${error.holder.nodeId}; run migrate again once that node has let it go` };
    throw error;
  }
  try {
    let bytes = 0;
    // Files first: a record that names a file is never in the cluster before the file is.
    for (const file of fresh) {
      try {
        await blobs.put(conversationId, file.path, file.data, file.mediaType);
      } catch (error) {
        if (error instanceof BlobClashError) return { status: "refused", reason: clashOf(file.path) };
        throw error;
      }
      bytes += file.data.length;
    }
    await appendInOneTransaction(pool, lease, missing.streams, indexRows);
    return { status: "copied", records: missing.count, files: fresh.length, bytes };
  } finally {
    await leases.handBack(lease);
  }
}

/** The records of each stream the cluster lacks, after checking the ones it has against the files. */
async function recordsToCopy(pool: Pool, source: Extract<SourceConversation, { status: "ready" }>): Promise<{ count: number; streams: SourceStream[] } | { reason: string }> {
  const cluster = await clusterStreams(pool, source);
  const streams: SourceStream[] = [];
  let count = 0;
  for (const { stream, records } of source.streams) {
    const held = cluster.get(stream) ?? { last: 0, records: new Map() };
    const shared = Math.min(held.last, records.length);
    for (const seq of shared === 0 ? [] : new Set([1, shared])) {
      if (canonicalJson(held.records.get(seq)) !== canonicalJson(records[seq - 1])) {
        return { reason: `record ${seq} of its ${stream === "metadata" ? "metadata" : `session ${stream}`} differs from the cluster's (another conversation with this id, or it went on both here and in the cluster)` };
      }
    }
    if (records.length > held.last) {
      streams.push({ stream, records: records.slice(held.last) });
      count += records.length - held.last;
    }
  }
  return { count, streams };
}

/** Per stream: the cluster's last seq, and its records at seq 1 and at the last seq the files share. */
async function clusterStreams(pool: Pool, source: Extract<SourceConversation, { status: "ready" }>): Promise<Map<string, ClusterStream>> {
  const lasts = await pool.query<{ stream: string; last: string }>(
    "SELECT stream, max(seq) AS last FROM atrium_records WHERE conversation_id = $1 GROUP BY stream",
    [source.conversationId],
  );
  const streams = new Map<string, ClusterStream>();
  for (const row of lasts.rows) streams.set(row.stream, { last: Number(row.last), records: new Map() });
  const wanted: Array<{ stream: string; seq: number }> = [];
  for (const { stream, records } of source.streams) {
    const held = streams.get(stream);
    if (held) wanted.push({ stream, seq: 1 }, { stream, seq: Math.min(held.last, records.length) });
  }
  if (wanted.length === 0) return streams;
  const rows = await pool.query<{ stream: string; seq: string; record: Record<string, unknown> }>(
    `SELECT r.stream, r.seq, r.record FROM atrium_records r
       JOIN jsonb_to_recordset($2::jsonb) AS w(stream text, seq bigint) ON r.stream = w.stream AND r.seq = w.seq
      WHERE r.conversation_id = $1`,
    [source.conversationId, JSON.stringify(wanted)],
  );
  for (const row of rows.rows) streams.get(row.stream)!.records.set(Number(row.seq), lineOrder(row.record));
  return streams;
}

const clashOf = (file: string) => `its file ${file} is in the cluster with other bytes`;

/** The files the cluster does not hold yet, read; the same bytes already there are skipped, other bytes refuse the conversation. */
async function filesToCopy(blobs: BlobStore, source: Extract<SourceConversation, { status: "ready" }>) {
  const held = new Map((await blobs.list(source.conversationId)).map((head) => [head.path, head.sha256]));
  const fresh: Array<SourceFile & { data: Buffer }> = [];
  for (const file of source.files) {
    const data = fs.readFileSync(file.absolute);
    const sha256 = held.get(file.path);
    if (sha256 === undefined) fresh.push({ ...file, data });
    else if (sha256 !== crypto.createHash("sha256").update(data).digest("hex")) return { reason: clashOf(file.path) };
  }
  return fresh;
}

/**
 * Every missing record of the conversation in one transaction, numbered by the database as the
 * files number them, with the conversation's index rows (issue 24) derived from all its records.
 */
async function appendInOneTransaction(pool: Pool, lease: Lease, streams: SourceStream[], indexRows: ConversationIndexRows): Promise<void> {
  await inTransaction(pool, async (client) => {
    for (const { stream, records } of streams) {
      for (let first = 0; first < records.length; first += BATCH) await appendBatch(client, lease, stream, records.slice(first, first + BATCH));
    }
    // Only with records copied: their lease-fenced append is what makes this transaction the
    // holder's (a copy of files alone holds no lock, and a node may own the conversation by now).
    if (streams.some((stream) => stream.records.length > 0)) await indexRows.write(client, lease.conversationId);
  });
}

async function appendBatch(client: PoolClient, lease: Lease, stream: string, records: Array<Record<string, unknown>>): Promise<void> {
  const batch = records.map(({ v: _v, seq: _seq, at, ...body }) => ({ stream, at, body }));
  const result = await client.query<{ records: Array<Record<string, unknown>> }>("SELECT atrium_append_records($1, $2, $3, $4::jsonb) AS records", [
    lease.conversationId,
    lease.nodeId,
    lease.epoch,
    databaseJson(batch),
  ]);
  const written = result.rows[0]!.records;
  written.forEach((record, index) => {
    // The database numbers the copy; it must number it as the files do.
    if (canonicalJson(lineOrder(record)) !== canonicalJson(records[index])) {
      throw new Error(`the cluster numbered record ${String(records[index]!.seq)} of stream ${stream} as ${String(record.seq)}`);
    }
  });
}
