/**
 * Figure 13: the cluster's record store (DESIGN §10c), side by side in one run.
 * - Append rate on its two backends: the JSONL files + SQLite index (Store.appendSession: flushed
 *   line, then index row) and PostgreSQL (PostgresRecordStore.appendSession: fenced
 *   atrium_append_records calls, a burst in one statement). One conversation, one session stream,
 *   the same progress bodies; sequential (each append awaited, as one streaming turn writes) and in
 *   bursts of 100 concurrent appends.
 * - Cross-node latency of a record: from the owner's append call to its delivery by another
 *   node's RecordFeed (NOTIFY at commit, then a read of the record from the table), one record
 *   at a time; the floor under a watcher on a node that is not the owner.
 * - Take-over at the lease layer: a node process holding a conversation is killed (-9); time until
 *   another node takes its lease (cluster.leaseSeconds 10, the default). And what moving a lease
 *   instead of forwarding a command would cost: a lease handed back and taken by another node,
 *   then the conversation read from PostgreSQL and folded (1,000 records).
 * Run: node --import tsx bench/postgres-append-rate.ts (its own embedded PostgreSQL).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Leases } from "../lib/store/postgres/leases";
import { PostgresRecordStore } from "../lib/store/postgres/postgres-record-store";
import { RecordFeed } from "../lib/store/postgres/record-feed";
import type { RecordStore } from "../lib/store/record-store";
import { Store } from "../lib/store/store";
import { startTestPostgres, type TestPostgres } from "../tests/support/embedded-postgres";
import { foldsFromDatabase, leaseMoves, takeOverAfterKill } from "./cluster/lease-figures";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, formatNumber, formatRatio, percentile } from "./support/stats";

const SEQUENTIAL = 2_000;
const BURSTS = 20;
const BURST = 100;
const CROSS_NODE_RECORDS = 300;
const LEASE_SECONDS = 10;
const LEASE_MOVES = 100;
const FOLD_RECORDS = 1_000;
const FOLD_ROUNDS = 10;

const body = (itemId: string, index: number) => ({
  type: "item.progress" as const,
  itemId,
  text: `progress ${index}: the quick brown fox jumps over the lazy dog, again and again`,
});

async function appendRates(records: RecordStore, conversationId: string, sessionId: string) {
  let started = performance.now();
  for (let index = 0; index < SEQUENTIAL; index += 1) await records.appendSession(conversationId, sessionId, body(sessionId, index));
  const sequential = SEQUENTIAL / ((performance.now() - started) / 1000);
  started = performance.now();
  for (let burst = 0; burst < BURSTS; burst += 1) {
    await Promise.all(Array.from({ length: BURST }, (_, index) => records.appendSession(conversationId, sessionId, body(sessionId, index))));
  }
  const bursts = (BURSTS * BURST) / ((performance.now() - started) / 1000);
  return { sequential, bursts };
}

function created(conversationId: string, rootSessionId: string) {
  return { type: "conversation.created" as const, conversationId, title: "bench", titleSource: "auto" as const, agent: "default", model: "offline", effort: null, cwd: "/tmp", executor: "local", rootSessionId, forkedFrom: null };
}

/** A PostgreSQL-backed owner on its own pool, with a long lease (a loaded machine must not outlive it). */
async function owner(postgres: TestPostgres, newId: () => string) {
  const pool = postgres.pool();
  const leases = new Leases(pool, newId(), 600);
  const conversationId = newId();
  const lease = await leases.take(conversationId);
  const records = new PostgresRecordStore(pool, () => lease);
  await records.appendMetadata(conversationId, created(conversationId, newId()));
  return { records, conversationId };
}

/** Milliseconds from each append call on the owner to its delivery on another node's feed. */
async function crossNodeLatencies(postgres: TestPostgres, newId: () => string): Promise<number[]> {
  const { records, conversationId } = await owner(postgres, newId);
  const sessionId = newId();
  const feed = new RecordFeed({ pool: postgres.pool(), connectionString: postgres.url });
  await feed.start();
  const arrived = new Map<number, () => void>();
  await feed.follow(conversationId, "now", (record) => arrived.get(record.seq)?.());
  const latencies: number[] = [];
  try {
    for (let index = 0; index < CROSS_NODE_RECORDS; index += 1) {
      const started = performance.now();
      const delivered = new Promise<void>((resolve) => arrived.set(index + 1, resolve));
      await records.appendSession(conversationId, sessionId, body(sessionId, index));
      await delivered;
      latencies.push(performance.now() - started);
    }
  } finally {
    await feed.stop();
  }
  return latencies;
}

const measure: Measure = async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-append-"));
  const store = new Store(home, { log: () => undefined });
  const postgres = await startTestPostgres();
  try {
    const fileConversation = store.newId();
    const fileSession = store.newId();
    await store.appendMetadata(fileConversation, created(fileConversation, fileSession));
    const files = await appendRates(store, fileConversation, fileSession);
    const { records, conversationId } = await owner(postgres, store.newId);
    const database = await appendRates(records, conversationId, store.newId());
    const latencies = await crossNodeLatencies(postgres, store.newId);
    const takeOver = await takeOverAfterKill(postgres, store.newId, LEASE_SECONDS);
    const moves = await leaseMoves(postgres, store.newId, LEASE_MOVES);
    const folds = await foldsFromDatabase(postgres, store.newId, FOLD_RECORDS, FOLD_ROUNDS);
    const rate = (figures: { sequential: number; bursts: number }) =>
      `${formatNumber(figures.sequential)}/s sequential, ${formatNumber(figures.bursts)}/s in bursts of ${BURST}`;
    return {
      figure: 13,
      title: "cluster record store: PostgreSQL appends and cross-node delivery",
      checks: [
        { metric: "PostgreSQL / files, sequential appends", value: formatRatio(database.sequential / files.sequential), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: "PostgreSQL / files, bursts of 100", value: formatRatio(database.bursts / files.bursts), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: "append → other node's feed, p50", value: formatMs(percentile(latencies, 0.5)), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: `lease taken over after kill -9 (leaseSeconds ${LEASE_SECONDS})`, value: formatMs(takeOver), goal: "≤ 15 s (issue 24; lease layer only)", pass: takeOver <= 15_000 },
      ],
      details: [
        `files + SQLite index: ${rate(files)}`,
        `PostgreSQL (fenced, group commit): ${rate(database)}`,
        `append → delivery on another connection's RecordFeed, ${CROSS_NODE_RECORDS} records one at a time: p50 ${formatMs(percentile(latencies, 0.5))}, p90 ${formatMs(percentile(latencies, 0.9))}, p99 ${formatMs(percentile(latencies, 0.99))}`,
        `kill -9 of the holder → another node's take: ${formatMs(takeOver)} (tries every 50 ms; the lease layer only, no owner restarted)`,
        `lease moved between two nodes (hand back + take), ${LEASE_MOVES} moves: p50 ${formatMs(percentile(moves, 0.5))}, p90 ${formatMs(percentile(moves, 0.9))}`,
        `a ${formatNumber(FOLD_RECORDS)}-record conversation read from PostgreSQL and folded: p50 ${formatMs(percentile(folds, 0.5))}, p90 ${formatMs(percentile(folds, 0.9))}`,
        `PostgreSQL ${path.basename(postgres.url)} on loopback (embedded-postgres 17), both sides in this process`,
      ],
      evidence: [],
    };
  } finally {
    await store.close();
    await postgres.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
};

runFigureIfMain(import.meta.url, measure);
