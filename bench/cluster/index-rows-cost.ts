/**
 * Issue 24, step (d): what writing a cluster node's index rows into atrium_index_* with its
 * records adds to each append. One owner writes a conversation of turns (per turn: the user's
 * message, turn.started, an answer created, streamed in three progress records and completed,
 * turn.ended), one append awaited after another, on a file SQLite index (WAL) as a node has,
 * "replica only" (today: records appended, then applied to the node's index) against "rows
 * written" (applied and captured inside the append's transaction, the rows upserted there).
 * Rounds alternate the two; each prints wall time per append, this process's CPU per append and
 * PostgreSQL's (its backends') CPU per append.
 * Run: node --import tsx bench/cluster/index-rows-cost.ts [turns]
 */
import fs from "node:fs";
import path from "node:path";
import { openIndex } from "../../lib/store/database";
import { createIdGenerator } from "../../lib/store/ids";
import { IndexWriter } from "../../lib/store/index-writer";
import { IndexReplica } from "../../lib/store/postgres/index-replica";
import { Leases } from "../../lib/store/postgres/leases";
import { PostgresRecordStore } from "../../lib/store/postgres/postgres-record-store";
import type { MetadataRecordBody, SessionRecordBody } from "../../lib/store/records";
import { RecordProofs } from "../../lib/store/record-proofs";
import { startTestPostgres, type TestPostgres } from "../../tests/support/embedded-postgres";
import { conversationCreated, rootSessionCreated } from "../../tests/support/conversation-records";
import { makeTempHome } from "../../tests/support/temp-home";

const TURNS = Number(process.argv[2] ?? 60);
const ROUNDS: Array<"replica only" | "rows written"> = ["replica only", "rows written", "rows written", "replica only", "replica only", "rows written"];
const TICKS_PER_SECOND = 100;
const newId = createIdGenerator();

/** CPU (ms) of PostgreSQL's processes: the postmaster's children now, and those that ended (its cutime). */
function postgresCpuMs(postmaster: number): number {
  const cpu = (pid: number, fields: number[]) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return fields.reduce((sum, field) => sum + Number(stat[field]), 0);
    } catch {
      return 0;
    }
  };
  let ticks = cpu(postmaster, [11, 12, 13, 14]);
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(stat[1]) === postmaster) ticks += Number(stat[11]) + Number(stat[12]);
    } catch {
      // gone meanwhile
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

async function round(postgres: TestPostgres, mode: (typeof ROUNDS)[number]) {
  const { home, cleanup } = makeTempHome();
  const pool = postgres.pool();
  const index = openIndex(path.join(home, "metadata.db"));
  const replica = new IndexReplica(pool, index.$client, new IndexWriter(index.$client, new RecordProofs(home)));
  const leases = new Leases(pool, newId(), 600);
  const conversationId = newId();
  const lease = await leases.take(conversationId);
  const records = new PostgresRecordStore(pool, () => lease);
  if (mode === "rows written") records.writeIndexRows(replica.ownRows());
  const meta = async (body: MetadataRecordBody) => replica.applyWritten(conversationId, [{ stream: "metadata", record: await records.appendMetadata(conversationId, body) }]);
  const sessionId = newId();
  const item = async (body: SessionRecordBody) => replica.applyWritten(conversationId, [{ stream: sessionId, record: await records.appendSession(conversationId, sessionId, body) }]);
  const at = () => new Date().toISOString();
  await meta(conversationCreated(conversationId, sessionId, "cost"));
  await meta(rootSessionCreated(sessionId));
  let appends = 0;
  const startCpu = process.cpuUsage();
  const startPostgres = postgresCpuMs(postgres.pid);
  const started = performance.now();
  for (let turn = 0; turn < TURNS; turn += 1) {
    const turnId = newId();
    const messageId = newId();
    const answerId = newId();
    await item({ type: "item.created", item: { id: messageId, sessionId, turnId: null, kind: "user_message", status: "completed", text: `question ${turn}`, createdAt: at() } } as SessionRecordBody);
    await meta({ type: "turn.started", turnId, sessionId, model: "offline", effort: "medium", inputMessageIds: [messageId] } as MetadataRecordBody);
    await item({ type: "item.created", item: { id: answerId, sessionId, turnId, kind: "assistant_message", status: "streaming", text: "", createdAt: at() } } as SessionRecordBody);
    for (const text of ["an", "an answer", "an answer in three parts"]) await item({ type: "item.progress", itemId: answerId, text } as SessionRecordBody);
    await item({ type: "item.completed", itemId: answerId, status: "completed", text: "an answer in three parts" } as SessionRecordBody);
    await meta({ type: "turn.ended", turnId, status: "completed", usage: { inputTokens: 10, outputTokens: 5 } } as MetadataRecordBody);
    appends += 8;
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(startCpu);
  const postgresMs = postgresCpuMs(postgres.pid) - startPostgres;
  const indexed = index.$client.prepare("SELECT count(*) AS n FROM items WHERE conversation_id = ?").get(conversationId) as { n: number };
  if (indexed.n !== TURNS * 2) throw new Error(`the index holds ${indexed.n} items, not ${TURNS * 2}`);
  index.$client.close();
  cleanup();
  return { mode, wallUs: (wallMs * 1000) / appends, nodeCpuUs: ((cpu.user + cpu.system) / appends), postgresCpuUs: (postgresMs * 1000) / appends };
}

const postgres = await startTestPostgres();
try {
  await round(postgres, "rows written"); // warm-up: JIT, the tables' first pages
  const results = [];
  for (const mode of ROUNDS) {
    const result = await round(postgres, mode);
    results.push(result);
    console.log(`${mode.padEnd(13)} wall ${result.wallUs.toFixed(0).padStart(5)} µs/append  node CPU ${result.nodeCpuUs.toFixed(0).padStart(5)} µs/append  PostgreSQL CPU ${result.postgresCpuUs.toFixed(0).padStart(5)} µs/append`);
  }
  for (const mode of new Set(ROUNDS)) {
    const of = results.filter((result) => result.mode === mode);
    const range = (pick: (result: (typeof of)[number]) => number) => `${Math.min(...of.map(pick)).toFixed(0)}–${Math.max(...of.map(pick)).toFixed(0)}`;
    console.log(`${mode}: wall ${range((r) => r.wallUs)} µs, node CPU ${range((r) => r.nodeCpuUs)} µs, PostgreSQL CPU ${range((r) => r.postgresCpuUs)} µs per append`);
  }
} finally {
  await postgres.stop();
}
