import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterSignatures } from "@/lib/auth/cluster-signature";
import type { RegisteredCluster } from "@/lib/cluster/cluster-registry";
import { readNodeWebhook, wakeOnHolder } from "@/lib/cluster/webhook-forward";
import type { Nodes } from "@/lib/store/postgres/nodes";

/**
 * DESIGN §6 and §10c: the node a webhook reaches hands the event to each holder, signed with
 * the cluster secret. A holder that cannot be reached is logged and counts 0; the holder reads
 * only a call whose signature is the cluster's, over exactly the body it got.
 */
const SECRET = "cluster-secret-0123456789abcdef0123456789";
const CONVERSATION = "01JB0000000000000000000000";
const EVENT = { name: "pull_request", delivery: "d-1", payload: { action: "closed" } };

function clusterOf(nodeId: string, secret = SECRET): RegisteredCluster {
  return { nodeId, nodeUrl: null, signatures: new ClusterSignatures(secret), nodes: {} as Nodes };
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real HTTP server that answers `status` with `body` and keeps each call it got. */
async function holderAnswering(status: number, body: string): Promise<{ url: string; calls: Request[] }> {
  const calls: Request[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
      calls.push(new Request(`http://holder${request.url}`, { method: request.method, headers, body: Buffer.concat(chunks) }));
      response.writeHead(status, { "content-type": "application/json" }).end(body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a webhook handed to the node holding its conversation", () => {
  it("is signed, names the conversation, and is read back by the holder only once", async () => {
    const holder = await holderAnswering(202, JSON.stringify({ matched: 1 }));
    const logged: string[] = [];
    expect(await wakeOnHolder(clusterOf("node-a"), { nodeId: "node-b", url: holder.url }, CONVERSATION, EVENT, (line) => logged.push(line))).toBe(1);
    expect(logged).toEqual([]);
    const [call] = holder.calls;
    expect(new URL(call!.url).pathname).toBe("/api/webhooks/github");
    const onHolder = clusterOf("node-b");
    expect(await readNodeWebhook(call!.clone(), onHolder)).toEqual({ conversationId: CONVERSATION, event: EVENT });
    // The same call again is a replay.
    await expect(readNodeWebhook(call!, onHolder)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("is refused by a holder whose cluster secret differs", async () => {
    const holder = await holderAnswering(202, JSON.stringify({ matched: 1 }));
    await wakeOnHolder(clusterOf("node-a"), { nodeId: "node-b", url: holder.url }, CONVERSATION, EVENT, () => {});
    await expect(readNodeWebhook(holder.calls[0]!, clusterOf("node-b", "another-secret-0123456789abcdef0123456"))).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("counts 0 and says so in the log when the holder cannot be reached or refuses", async () => {
    const logged: string[] = [];
    const gone = { nodeId: "node-b", url: `http://127.0.0.1:${await closedPort()}` };
    expect(await wakeOnHolder(clusterOf("node-a"), gone, CONVERSATION, EVENT, (line) => logged.push(line))).toBe(0);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`did not wake conversation ${CONVERSATION}`);
    expect(logged[0]).toContain("node node-b");
    expect(logged[0]).toContain("cannot be reached");

    const refusing = await holderAnswering(401, JSON.stringify({ error: { code: "unauthorized", message: "no" } }));
    expect(await wakeOnHolder(clusterOf("node-a"), { nodeId: "node-c", url: refusing.url }, CONVERSATION, EVENT, (line) => logged.push(line))).toBe(0);
    expect(logged[1]).toContain("answered 401");
  });
});
