import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { foldConversation } from "../../lib/store/conversation-fold";
import { Leases, LeaseHeldError } from "../../lib/store/postgres/leases";
import { PostgresRecordStore } from "../../lib/store/postgres/postgres-record-store";
import type { TestPostgres } from "../../tests/support/embedded-postgres";
import { conversationCreated, rootSessionCreated } from "../../tests/support/conversation-records";

const NODE_PROCESS = path.resolve(import.meta.dirname, "../../tests/support/cluster-node-process.ts");

/**
 * Take-over after a kill -9 at the lease layer: a node (its own process, cluster.leaseSeconds
 * `leaseSeconds`) holds a conversation and is killed; another node tries to take it every 50 ms.
 * Milliseconds from the kill to the take. Bounded by leaseSeconds minus the time since the dead
 * node's last renewal (renewals every leaseSeconds/3).
 */
export async function takeOverAfterKill(postgres: TestPostgres, newId: () => string, leaseSeconds: number): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", NODE_PROCESS, postgres.url, "http://127.0.0.1:1", String(leaseSeconds)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    await lines.next();
    const conversationId = newId();
    child.stdin.write(`acquire ${conversationId}\n`);
    const answer = JSON.parse((await lines.next()).value as string) as { ok: boolean };
    if (!answer.ok) throw new Error("the node process could not take the lease");
    const other = new Leases(postgres.pool(), newId(), leaseSeconds);
    const killed = performance.now();
    child.kill("SIGKILL");
    for (;;) {
      try {
        await other.take(conversationId);
        return performance.now() - killed;
      } catch (error) {
        if (!(error instanceof LeaseHeldError)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  }
}

/** Milliseconds per lease move between two nodes (hand back by the holder, take by the other), `moves` times. */
export async function leaseMoves(postgres: TestPostgres, newId: () => string, moves: number): Promise<number[]> {
  const pool = postgres.pool();
  const nodes = [new Leases(pool, newId()), new Leases(pool, newId())];
  const conversationId = newId();
  let lease = await nodes[0]!.take(conversationId);
  const times: number[] = [];
  for (let move = 1; move <= moves; move += 1) {
    const started = performance.now();
    await nodes[(move - 1) % 2]!.handBack(lease);
    lease = await nodes[move % 2]!.take(conversationId);
    times.push(performance.now() - started);
  }
  return times;
}

/**
 * Milliseconds to read a conversation of `records` session records from PostgreSQL and fold it
 * (what a node does before it can own a conversation it takes), `rounds` times.
 */
export async function foldsFromDatabase(postgres: TestPostgres, newId: () => string, records: number, rounds: number): Promise<number[]> {
  const pool = postgres.pool();
  const leases = new Leases(pool, newId(), 600);
  const conversationId = newId();
  const sessionId = newId();
  const lease = await leases.take(conversationId);
  const store = new PostgresRecordStore(pool, () => lease);
  await store.appendMetadata(conversationId, conversationCreated(conversationId, sessionId, "fold"));
  await store.appendMetadata(conversationId, rootSessionCreated(sessionId));
  const text = "the quick brown fox jumps over the lazy dog ".repeat(4);
  await Promise.all(Array.from({ length: records }, (_, index) => store.appendSession(conversationId, sessionId, { type: "item.progress", itemId: sessionId, text: `${index} ${text}` })));
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    const fold = foldConversation(await store.foldSource(conversationId), conversationId, () => true);
    if (!fold) throw new Error("the conversation did not fold");
    times.push(performance.now() - started);
  }
  return times;
}
