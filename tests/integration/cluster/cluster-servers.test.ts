import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSse, type SseConnection } from "../../support/sse-client";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { TEST_TOKEN } from "../../support/server-process";
import { sendChunked } from "../../support/raw-http";

/**
 * DESIGN §10c from the outside: two real server processes (server.ts, production build) on one
 * real PostgreSQL. Any node answers: a conversation made on A lists on B, B forwards commands
 * for a conversation A holds to A (signed), and a watcher on B sees A's events with A's ids.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;
const streams: SseConnection[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3511), startClusterServer(database.postgres.url, 3512)]);
}, 90_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

async function create(server: ClusterServer, text: string): Promise<{ conversation: { id: string; title: string }; turn: { id: string } }> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { conversation: { id: string; title: string }; turn: { id: string } };
}

/** The turn's status as `server` answers it (null while that node does not know the turn yet). */
async function turnStatus(server: ClusterServer, turnId: string): Promise<string | null> {
  const response = await server.api(`/api/turns/${turnId}`);
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return ((await response.json()) as { turn: { status: string } }).turn.status;
}

describe("two nodes on one PostgreSQL", () => {
  it("name themselves in /api/health and list each other in /api/cluster", async () => {
    expect(a.nodeId).not.toBe(b.nodeId);
    const cluster = (await (await b.api("/api/cluster")).json()) as { nodes: Array<{ id: string; url: string; current: boolean; conversations: number }> };
    const ids = cluster.nodes.map((node) => node.id);
    expect(ids).toEqual(expect.arrayContaining([a.nodeId, b.nodeId]));
    expect(cluster.nodes.find((node) => node.id === b.nodeId)).toMatchObject({ url: "http://127.0.0.1:3512", current: true });
    expect(cluster.nodes.find((node) => node.id === a.nodeId)).toMatchObject({ url: "http://127.0.0.1:3511", current: false });
  });

  it("a conversation created on A lists on B, and B answers for it with A's owner", async () => {
    const created = await create(a, "made on A");
    await pollUntil(async () => {
      const list = (await (await b.api("/api/conversations")).json()) as { conversations: Array<{ id: string }> };
      return list.conversations.some((conversation) => conversation.id === created.conversation.id);
    }, { what: "the conversation in B's list" });
    await pollUntil(async () => (await turnStatus(b, created.turn.id)) === "completed", { what: "the first turn, read through B" });
    const read = (await (await b.api(`/api/conversations/${created.conversation.id}`)).json()) as { conversation: { title: string } };
    expect(read.conversation.title).toBe(created.conversation.title);
    const lease = await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1", [created.conversation.id]);
    expect(lease.rows[0].node_id).toBe(a.nodeId);
    const cluster = (await (await a.api("/api/cluster")).json()) as { nodes: Array<{ id: string; conversations: number }> };
    expect(cluster.nodes.find((node) => node.id === a.nodeId)!.conversations).toBeGreaterThanOrEqual(1);
  });

  it("a message sent through B runs its turn on A, which holds the lease; a watcher on B sees A's events with A's ids", async () => {
    const created = await create(a, "first");
    const id = created.conversation.id;
    await pollUntil(async () => (await turnStatus(a, created.turn.id)) === "completed", { what: "the first turn" });
    const onA = await connectSse(`${a.url}/api/conversations/${id}/events`, auth);
    const onB = await connectSse(`${b.url}/api/conversations/${id}/events`, auth);
    streams.push(onA, onB);
    await Promise.all([onA.waitFor((event) => event.event === "snapshot"), onB.waitFor((event) => event.event === "snapshot")]);

    const sent = await b.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "through B [[stream:30]]" }) });
    expect(sent.status).toBe(202);
    const outcome = (await sent.json()) as { message: { status: string }; turn: { id: string } };
    expect(outcome.message.status).toBe("started");
    const ended = (stream: SseConnection) =>
      stream.waitFor((event) => event.event === "turn.ended" && JSON.parse(event.data).turn.id === outcome.turn.id, 20_000);
    const [endedOnA, endedOnB] = await Promise.all([ended(onA), ended(onB)]);
    expect(JSON.parse(endedOnB.data).turn.status).toBe("completed");
    // The same event, with the same id, on both nodes: B relays A's stream.
    expect(endedOnB.id).toBe(endedOnA.id);
    const deltasOnA = onA.events.filter((event) => event.event === "item.delta").map((event) => event.id);
    const deltasOnB = onB.events.filter((event) => event.event === "item.delta").map((event) => event.id);
    expect(deltasOnB).toEqual(deltasOnA);

    // The records are in PostgreSQL, written under A's lease.
    const records = await database.pool.query(
      `SELECT r.record->>'type' AS type, r.record->>'status' AS status, r.epoch, l.epoch AS lease_epoch, l.node_id
         FROM atrium_records r JOIN atrium_leases l USING (conversation_id)
        WHERE r.conversation_id = $1 AND r.stream = 'metadata' AND r.record->>'turnId' = $2`,
      [id, outcome.turn.id],
    );
    expect(records.rows.map((row) => row.type)).toEqual(expect.arrayContaining(["turn.started", "turn.ended"]));
    for (const row of records.rows) expect(row).toMatchObject({ node_id: a.nodeId, epoch: row.lease_epoch });
  });

  it("a browser's multiplexed stream on B hears list events from A and follows a conversation A holds, with A's ids", async () => {
    const mux = await connectSse(`${b.url}/api/stream`, auth);
    streams.push(mux);
    const opened = await mux.waitFor((event) => event.event === "stream.opened");
    const streamId = (JSON.parse(opened.data) as { streamId: string }).streamId;
    const created = await create(a, "watched from B's sidebar");
    const id = created.conversation.id;
    const listed = await mux.waitFor((event) => event.event === "list" && JSON.parse(event.data).event.conversationId === id, 10_000);
    expect(JSON.parse(listed.data).event.type).toBe("conversation.created");
    await pollUntil(async () => (await turnStatus(a, created.turn.id)) === "completed", { what: "the first turn" });

    const onA = await connectSse(`${a.url}/api/conversations/${id}/events`, auth);
    streams.push(onA);
    const added = await b.api(`/api/stream/${streamId}/subscriptions`, { method: "POST", body: JSON.stringify({ add: [{ key: "k1", conversationId: id }], remove: [] }) });
    expect(added.status).toBe(200);
    const frameOf = (event: { data: string }) => JSON.parse(event.data) as { key: string; id: number; event: { type: string; turn?: { id: string; status: string } } };
    await mux.waitFor((event) => event.event === "conversation" && frameOf(event).key === "k1" && frameOf(event).event.type === "snapshot");
    const sent = (await (await a.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "seen from B [[stream:10]]" }) })).json()) as { turn: { id: string } };
    const endedOnB = await mux.waitFor(
      (event) => event.event === "conversation" && frameOf(event).event.type === "turn.ended" && frameOf(event).event.turn!.id === sent.turn.id,
      20_000,
    );
    const endedOnA = await onA.waitFor((event) => event.event === "turn.ended" && JSON.parse(event.data).turn.id === sent.turn.id);
    expect(frameOf(endedOnB).id).toBe(Number(endedOnA.id));
    expect(frameOf(endedOnB).event.turn!.status).toBe("completed");
  });

  it("a delete sent to B while A runs the conversation's turn answers 409 turn_running, as on one node", async () => {
    const created = await create(a, "busy [[delay:3000]]");
    const deleted = await b.api(`/api/conversations/${created.conversation.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(409);
    expect(((await deleted.json()) as { error: { code: string } }).error.code).toBe("turn_running");
    await b.api(`/api/conversations/${created.conversation.id}/interrupt`, { method: "POST", body: "{}" });
    await pollUntil(async () => (await turnStatus(a, created.turn.id)) === "interrupted", { what: "the interrupted turn" });
    expect((await b.api(`/api/conversations/${created.conversation.id}`, { method: "DELETE" })).status).toBe(204);
    await pollUntil(async () => (await a.api(`/api/conversations/${created.conversation.id}`)).status === 404, { what: "the deletion on A" });
  });

  it("a creation retried with the same requestKey on the other node answers the first one, once it is indexed there", async () => {
    const body = JSON.stringify({ text: "made once", requestKey: "create-once-0001" });
    const first = await a.api("/api/conversations", { method: "POST", body });
    expect(first.status).toBe(201);
    const made = (await first.json()) as { conversation: { id: string }; turn: { id: string } };
    await pollUntil(async () => (await b.api("/api/conversations")).json().then((list: { conversations: Array<{ id: string }> }) => list.conversations.some((c) => c.id === made.conversation.id)), {
      what: "the conversation indexed on B",
    });
    const again = await b.api("/api/conversations", { method: "POST", body });
    expect(again.status).toBe(201);
    const replayed = (await again.json()) as { conversation: { id: string }; turn: { id: string } };
    expect(replayed.conversation.id).toBe(made.conversation.id);
    expect(replayed.turn.id).toBe(made.turn.id);
    const count = await database.pool.query("SELECT count(*)::int AS n FROM atrium_records WHERE stream = 'metadata' AND record->>'requestKey' = 'create-once-0001'");
    expect(count.rows[0].n).toBe(1);
  });

  it("a fork asked of B for a conversation A holds is made on A, its records in PostgreSQL, and lists on B", async () => {
    const created = await create(a, "to be forked");
    await pollUntil(async () => (await turnStatus(a, created.turn.id)) === "completed", { what: "the first turn" });
    const forked = await b.api(`/api/conversations/${created.conversation.id}/fork`, { method: "POST", body: "{}" });
    expect(forked.status).toBe(201);
    const fork = ((await forked.json()) as { conversation: { id: string; forkedFrom: { conversationId: string } } }).conversation;
    expect(fork.forkedFrom.conversationId).toBe(created.conversation.id);
    const lease = await database.pool.query("SELECT node_id, epoch FROM atrium_leases WHERE conversation_id = $1", [fork.id]);
    expect(lease.rows[0].node_id).toBe(a.nodeId);
    const records = await database.pool.query("SELECT stream, record->>'type' AS type, epoch FROM atrium_records WHERE conversation_id = $1 ORDER BY stream <> 'metadata', seq", [fork.id]);
    expect(records.rows[0]).toMatchObject({ stream: "metadata", type: "conversation.created" });
    expect(records.rows.filter((row) => row.type === "item.created").length).toBeGreaterThanOrEqual(2);
    for (const row of records.rows) expect(row.epoch).toBe(lease.rows[0].epoch);
    const items = (await (await b.api(`/api/conversations/${fork.id}/items`)).json()) as { items: Array<{ kind: string }> };
    expect(items.items.map((item) => item.kind)).toEqual(["user_message", "assistant_message"]);
  });

  it("a command's body past the JSON limit is refused by the node it reaches, not read whole to be forwarded", async () => {
    const created = await create(a, "held by A");
    await pollUntil(async () => (await turnStatus(b, created.turn.id)) === "completed", { what: "the first turn, read through B" });
    const answer = await sendChunked(b.url, `/api/conversations/${created.conversation.id}/messages`, 256 * 1024 * 1024, { ...auth, "content-type": "application/json" });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
    // B answered once it had read past 1 MiB, long before the client could send 256 MiB.
    expect(answer.sent).toBeLessThan(64 * 1024 * 1024);
    const items = (await (await a.api(`/api/conversations/${created.conversation.id}/items`)).json()) as { items: unknown[] };
    expect(items.items).toHaveLength(2);
  });

  it("refuses a forged node-to-node call", async () => {
    const created = await create(b, "held by B");
    const forged = await fetch(`${a.url}/api/conversations/${created.conversation.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-atrium-node": a.nodeId, "x-atrium-node-signature": `t=${Date.now()},n=${"0".repeat(24)},s=${"0".repeat(64)}` },
      body: JSON.stringify({ text: "forged" }),
    });
    expect(forged.status).toBe(401);
    const page = await fetch(`${a.url}/`, { headers: { "x-atrium-node": a.nodeId, "x-atrium-node-signature": "t=1,n=0,s=0" }, redirect: "manual" });
    expect(page.status).toBe(302);
  });
});
