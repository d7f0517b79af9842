import fs from "node:fs";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { makeTempHome } from "../../support/temp-home";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { endedTurn, machineStatus } from "../machines/machine-fixture";

/**
 * DESIGN §10c: a conversation whose machine relinked to another node is handed over there once
 * idle. Each conversation's hand-over is its own: a request for a conversation being handed over
 * waits for that hand-over (and then goes to the machine's node, never back to the old one), and
 * a request for another conversation is neither delayed nor misrouted by it. The hand-back of X
 * is held in the database (a row lock the test takes) to make the window wide.
 */
const database = usePostgresPerFile();
const CONFIG = { approvals: { shell: "auto" } };
let a: ClusterServer;
let b: ClusterServer;
let temp: ReturnType<typeof makeTempHome>;
let laptop: MachineProcess | undefined;
let machine: { id: string; token: string; root: string };

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3276, CONFIG), startClusterServer(database.postgres.url, 3277, CONFIG)]);
  temp = makeTempHome("atrium-cluster-handover-");
  const added = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "moving-box" }) });
  expect(added.status).toBe(201);
  const { machine: made, token } = (await added.json()) as { machine: { id: string }; token: string };
  const root = path.join(temp.home, "work");
  fs.mkdirSync(root, { recursive: true });
  machine = { id: made.id, token, root: fs.realpathSync(root) };
}, 90_000);

afterAll(async () => {
  await laptop?.stop();
  await Promise.all([a?.cleanup(), b?.cleanup()]);
  temp?.cleanup();
});

async function linkTo(server: ClusterServer): Promise<void> {
  await laptop?.stop();
  laptop = startMachineProcess({ url: server.url, token: machine.token, home: path.join(temp.home, "box-home"), roots: [machine.root] });
  // Linked, not only claimed: linked_at is marked once the machine's hello made it the node's link.
  await pollUntil(async () => (await database.pool.query("SELECT linked_node FROM atrium_machines WHERE id = $1 AND linked_at IS NOT NULL", [machine.id])).rows[0]?.linked_node === server.nodeId, {
    what: `the machine's link held by ${server.nodeId}`,
    timeoutMs: 30_000,
  });
}

const holderOf = async (conversationId: string): Promise<string | null> =>
  (await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()", [conversationId])).rows[0]?.node_id ?? null;

async function conversationOn(server: ClusterServer): Promise<string> {
  const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: '[[tool:shell {"command":"echo here"}]]', machine: machine.id }) });
  expect(created.status).toBe(201);
  const { conversation, turn } = (await created.json()) as { conversation: { id: string }; turn: { id: string } };
  expect((await endedTurn(server, turn.id)).status).toBe("completed");
  return conversation.id;
}

/** The node's hand-back of the conversation's lease, waiting on the row lock the test holds. */
async function handBackWaiting(): Promise<boolean> {
  const rows = await database.pool.query(
    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE atrium_leases SET expires_at = clock_timestamp()%' AND query NOT LIKE '%make_interval%'",
  );
  return (rows.rowCount ?? 0) > 0;
}

describe("two conversations handed over at once", () => {
  it("a request for X waits for X's hand-over and goes to the machine's node; Y's hand-over meanwhile is neither delayed nor misrouted", async () => {
    await linkTo(a);
    const x = await conversationOn(a);
    const y = await conversationOn(a);
    expect([await holderOf(x), await holderOf(y)]).toEqual([a.nodeId, a.nodeId]);

    await linkTo(b);
    await machineStatus(a, machine.id, "online");
    const lock: pg.PoolClient = await database.pool.connect();
    let x1: Promise<Response> | undefined;
    let x2: Promise<Response> | undefined;
    try {
      await lock.query("BEGIN");
      await lock.query("SELECT 1 FROM atrium_leases WHERE conversation_id = $1 FOR UPDATE", [x]);
      // X's hand-over starts on A and is held in the database.
      x1 = a.api(`/api/conversations/${x}`);
      await pollUntil(handBackWaiting, { what: "A's hand-back of X to wait on the lock" });

      // Y is handed over meanwhile, answered by B, not held up by X.
      const y1 = await a.api(`/api/conversations/${y}`);
      expect(y1.status).toBe(200);
      expect(await holderOf(y)).toBe(b.nodeId);

      // A second request for X while its hand-over is under way: answered once it is done, from where X went
      // (checked below: both answer 200 and X is held by B, not taken back by A).
      x2 = a.api(`/api/conversations/${x}`);
      // Requests for Y keep going through meanwhile.
      for (let round = 0; round < 3; round += 1) expect((await a.api(`/api/conversations/${y}`)).status).toBe(200);
      await lock.query("COMMIT");
    } finally {
      await lock.query("ROLLBACK").catch(() => undefined);
      lock.release();
    }
    const answers = await Promise.all([x1!, x2!]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    // X went to the machine's node, not back to A.
    expect(await holderOf(x)).toBe(b.nodeId);
    expect(await holderOf(y)).toBe(b.nodeId);
    const sent = await a.api(`/api/conversations/${x}/messages`, { method: "POST", body: JSON.stringify({ text: '[[tool:shell {"command":"echo moved"}]]' }) });
    expect(sent.status).toBe(202);
    const { turn } = (await sent.json()) as { turn: { id: string } };
    expect((await endedTurn(a, turn.id)).status).toBe("completed");
    expect(await holderOf(x)).toBe(b.nodeId);
  }, 90_000);
});
