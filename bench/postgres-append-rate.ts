/**
 * Append rate of the owner's record store on its two backends, side by side in one run: the
 * JSONL files + SQLite index (Store.appendSession: flushed line, then index row) and PostgreSQL
 * (PostgresRecordStore.appendSession: fenced atrium_append_records calls, a burst in one statement). One
 * conversation, one session stream, the same progress bodies; sequential (each append awaited,
 * as one streaming turn writes) and in bursts of 100 concurrent appends (many turns at once on
 * one node go to different conversations; here one stream, so PostgreSQL serialises on the lease row).
 * Run: node --import tsx bench/postgres-append-rate.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Leases } from "../lib/store/postgres/leases";
import { PostgresRecordStore } from "../lib/store/postgres/postgres-record-store";
import type { RecordStore } from "../lib/store/record-store";
import { Store } from "../lib/store/store";
import { startTestPostgres } from "../tests/support/embedded-postgres";

const SEQUENTIAL = 2_000;
const BURSTS = 20;
const BURST = 100;

const body = (itemId: string, index: number) => ({
  type: "item.progress" as const,
  itemId,
  text: `progress ${index}: the quick brown fox jumps over the lazy dog, again and again`,
});

async function measure(records: RecordStore, conversationId: string, sessionId: string) {
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

async function main() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-append-"));
  const store = new Store(home, { log: () => undefined });
  const postgres = await startTestPostgres();
  try {
    const fileConversation = store.newId();
    const fileSession = store.newId();
    await store.appendMetadata(fileConversation, created(fileConversation, fileSession));
    const files = await measure(store, fileConversation, fileSession);

    const pool = postgres.pool();
    // Long enough for a loaded machine: the figure measures appends, not renewals.
    const leases = new Leases(pool, store.newId(), 600);
    const pgConversation = store.newId();
    const lease = await leases.take(pgConversation);
    const records = new PostgresRecordStore(pool, () => lease);
    await records.appendMetadata(pgConversation, created(pgConversation, store.newId()));
    const database = await measure(records, pgConversation, store.newId());

    const row = (name: string, figures: { sequential: number; bursts: number }) =>
      `${name.padEnd(28)} ${figures.sequential.toFixed(0).padStart(8)} /s sequential ${figures.bursts.toFixed(0).padStart(8)} /s in bursts of ${BURST}`;
    console.log(row("files + SQLite index", files));
    console.log(row("PostgreSQL (fenced)", database));
    console.log(`PostgreSQL / files: ${(database.sequential / files.sequential).toFixed(2)} sequential, ${(database.bursts / files.bursts).toFixed(2)} in bursts`);
  } finally {
    await store.close();
    await postgres.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

await main();
