import { sign } from "@octokit/webhooks-methods";
import { freePort } from "../../support/mcp-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterSignatures } from "@/lib/auth/cluster-signature";
import { CLUSTER_SECRET, startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";

/**
 * DESIGN §6 and §10c from the outside: two real server processes on one real PostgreSQL. A GitHub
 * webhook reaching node A wakes an objective waiting in a conversation node B holds: A verifies
 * GitHub's signature and hands the event to B, signed with the cluster secret, naming that
 * conversation. Only such a signed node call can name one.
 */
const SECRET = "webhook-secret-for-cluster-tests";
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;

beforeAll(async () => {
  const config = { webhooks: { github: { secret: SECRET } } };
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, await freePort(), config), startClusterServer(database.postgres.url, await freePort(), config)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

const LISTEN = '[[tool:wait_for_event {"source":"github","match":{"event":"pull_request","action":"closed"}}]]';
const CLOSED = { action: "closed", number: 7, repository: { full_name: "o/r" } };

type Objective = { status: string; slices: number };

async function objectiveOn(server: ClusterServer, id: string): Promise<Objective> {
  return ((await (await server.api(`/api/conversations/${id}`)).json()) as { conversation: { objective: Objective } }).conversation.objective;
}

/** A conversation made on B whose objective waits for a closed pull request; B holds its lease. */
async function waitingOnB(): Promise<string> {
  const created = await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "set up" }) });
  expect(created.status).toBe(201);
  const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  const status = async () => ((await (await b.api(`/api/conversations/${id}`)).json()) as { conversation: { status: string } }).conversation.status;
  await pollUntil(async () => (await status()) === "idle", { what: "idle" });
  const opened = await b.api(`/api/conversations/${id}/objective`, { method: "POST", body: JSON.stringify({ text: `merge the fix ${LISTEN}` }) });
  expect(opened.status).toBe(201);
  await pollUntil(async () => (await objectiveOn(b, id)).status === "waiting_event" && (await status()) === "idle", { what: "the objective waiting" });
  const lease = await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1", [id]);
  expect(lease.rows[0].node_id).toBe(b.nodeId);
  return id;
}

async function deliverGithub(server: ClusterServer, payload: unknown): Promise<Response> {
  const body = JSON.stringify(payload);
  const headers = { "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": "d-1", "x-hub-signature-256": await sign(SECRET, body) };
  return fetch(`${server.url}/api/webhooks/github`, { method: "POST", headers, body });
}

/** A node-to-node call to the webhook path naming `conversationId`, with the headers `headersFor` gives for its body. */
function nodeCall(server: ClusterServer, conversationId: string, headersFor: (body: Buffer) => Record<string, string>): Promise<Response> {
  const body = Buffer.from(JSON.stringify({ conversationId, event: { name: "pull_request", delivery: "d-2", payload: CLOSED } }));
  return fetch(`${server.url}/api/webhooks/github`, { method: "POST", headers: { "content-type": "application/json", ...headersFor(body) }, body });
}

describe("a GitHub webhook on a cluster of server processes", () => {
  it("sent to node A wakes the objective waiting in a conversation node B holds, and counts it", async () => {
    const id = await waitingOnB();
    const before = (await objectiveOn(b, id)).slices;
    const answer = await deliverGithub(a, CLOSED);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ matched: 1 });
    // B woke it (the wake is written before B answers A) and runs its next slice.
    await pollUntil(async () => (await objectiveOn(b, id)).slices > before, { what: "B's new slice" });
    const lease = await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1", [id]);
    expect(lease.rows[0].node_id).toBe(b.nodeId);
  });

  it("a call naming a conversation wakes it only when a node signed it: a forged one is refused 401 and wakes nothing", async () => {
    const id = await waitingOnB();
    const before = await objectiveOn(b, id);
    const nodeSigned = new ClusterSignatures(CLUSTER_SECRET);
    const strangerSigned = new ClusterSignatures("not-the-cluster-secret-0123456789abcdef");
    const forgeries: Array<(body: Buffer) => Record<string, string>> = [
      () => ({ "x-atrium-node": a.nodeId, "x-atrium-node-signature": `t=${Date.now()},n=${"0".repeat(24)},s=${"0".repeat(64)}` }),
      () => ({ "x-atrium-node": a.nodeId }),
      (body) => strangerSigned.sign(a.nodeId, { method: "POST", path: "/api/webhooks/github", body }),
      // A real node signature over another body: the body named here is not the one signed.
      () => nodeSigned.sign(a.nodeId, { method: "POST", path: "/api/webhooks/github", body: "{}" }),
    ];
    for (const server of [a, b]) {
      for (const forge of forgeries) {
        const forged = await nodeCall(server, id, forge);
        expect(forged.status).toBe(401);
        expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
      }
    }
    // A wake is written before its answer: after the refusals the objective is as it was.
    expect(await objectiveOn(b, id)).toMatchObject({ status: "waiting_event", slices: before.slices });

    // The same call, signed with the cluster secret, is the holder's to answer.
    const signed = await nodeCall(b, id, (body) => nodeSigned.sign(a.nodeId, { method: "POST", path: "/api/webhooks/github", body }));
    expect(signed.status).toBe(202);
    expect(await signed.json()).toEqual({ matched: 1 });
    await pollUntil(async () => (await objectiveOn(b, id)).slices > before.slices, { what: "B's new slice" });
  });
});
