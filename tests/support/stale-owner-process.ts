/**
 * A second OS process playing a conversation's former owner (the fencing tests): it writes with
 * the lease it is given on the command line. Each line on stdin ("append <text>") is one
 * appendSession attempt; each answer is one JSON line on stdout: {ok: true, seq} or {ok: false, code}.
 * Usage: node --import tsx stale-owner-process.ts <url> <conversationId> <sessionId> <nodeId> <epoch>
 */
import readline from "node:readline";
import pg from "pg";
import { PostgresRecordStore } from "../../lib/store/postgres/postgres-record-store";

const [url, conversationId, sessionId, nodeId, epoch] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 1 });
const lease = { conversationId: conversationId!, nodeId: nodeId!, epoch: Number(epoch), expiresAt: new Date(0) };
const records = new PostgresRecordStore(pool, () => lease);

const input = readline.createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: true }) + "\n");
for await (const line of input) {
  if (line === "exit") break;
  const text = line.replace(/^append /, "");
  try {
    const record = await records.appendSession(conversationId!, sessionId!, { type: "item.progress", itemId: sessionId!, text });
    process.stdout.write(JSON.stringify({ ok: true, seq: record.seq }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, code: (error as { code?: string }).code ?? String(error) }) + "\n");
  }
}
await pool.end();
// stdin stays referenced after the loop ends: leave at once.
process.exit(0);
