import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";

/**
 * DESIGN §10c, "any node answers any request", across a clean stop: a node stopping closes its
 * port first and hands its leases back a moment later. A command that reaches another node in
 * between (the lease still held by the stopping node, which no longer listens) is not refused
 * with a 503: it never reached the stopping node, so it is sent where the lease goes once it is
 * handed back. The hand-back is held in the database (a row lock the test takes) to make the
 * window wide; the command must still be answered 202 once it is released.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3531), startClusterServer(database.postgres.url, 3532)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

const holderOf = async (conversationId: string): Promise<string | null> =>
  (await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()", [conversationId])).rows[0]?.node_id ?? null;

async function turnStatus(server: ClusterServer, turnId: string): Promise<string | null> {
  const response = await server.api(`/api/turns/${turnId}`);
  return response.status === 200 ? ((await response.json()) as { turn: { status: string } }).turn.status : null;
}

/** B's hand-back of its lease (a clean stop's), waiting on the row lock the test holds. */
async function handBackWaiting(): Promise<boolean> {
  const rows = await database.pool.query(
    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE atrium_leases SET expires_at = clock_timestamp()%' AND query NOT LIKE '%make_interval%'",
  );
  return (rows.rowCount ?? 0) > 0;
}

describe("a command for a conversation whose holder is stopping", () => {
  it("waits for the stopping holder's hand-back and is answered by the node it asked, not refused with a 503", async () => {
    const created = await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "on B" }) });
    expect(created.status).toBe(201);
    const { conversation, turn: first } = (await created.json()) as { conversation: { id: string }; turn: { id: string } };
    await pollUntil(async () => (await turnStatus(b, first.id)) === "completed", { timeoutMs: 30_000, what: "the first turn on B" });
    // A knows B holds it (the read is forwarded there).
    expect((await a.api(`/api/conversations/${conversation.id}`)).status).toBe(200);
    expect(await holderOf(conversation.id)).toBe(b.nodeId);

    const lock: pg.PoolClient = await database.pool.connect();
    let sent: Promise<Response> | undefined;
    let stopped: Promise<number | null> | undefined;
    try {
      await lock.query("BEGIN");
      await lock.query("SELECT 1 FROM atrium_leases WHERE conversation_id = $1 FOR UPDATE", [conversation.id]);
      stopped = b.stop();
      // B's port is closed before its hand-back starts: the hand-back waiting means nothing listens at B.
      await pollUntil(handBackWaiting, { what: "B's hand-back to wait on the lock" });
      sent = a.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", body: JSON.stringify({ text: "on A now" }) });
      await pollUntil(() => a.output().includes(`holds conversation ${conversation.id} but is not listening`), {
        what: "A to find B not listening and wait for the lease",
      });
      await lock.query("COMMIT");
    } finally {
      await lock.query("ROLLBACK").catch(() => undefined);
      lock.release();
    }
    expect(await stopped).toBe(0);
    const answer = await sent;
    expect(answer.status).toBe(202);
    const { turn } = (await answer.json()) as { turn: { id: string } };
    await pollUntil(async () => (await turnStatus(a, turn.id)) === "completed", { timeoutMs: 30_000, what: "the turn on A" });
    expect(await holderOf(conversation.id)).toBe(a.nodeId);
    // Sent once: the conversation has the two turns, not a third from a resent call.
    const turns = (await (await a.api(`/api/conversations/${conversation.id}/turns`)).json()) as { turns: unknown[] };
    expect(turns.turns).toHaveLength(2);
  }, 90_000);
});
