import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wakeOnHolder } from "@/lib/cluster/webhook-forward";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { pushOutIdleOwner } from "../../support/push-out-idle-owner";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24 step (f) review, DESIGN §6 and §10c: a node's index holds only the conversations whose
 * leases it holds, so a GitHub webhook must find the objectives waiting for it in the cluster's
 * tables, not in that index. An objective waiting on a conversation nobody holds now (its idle
 * owner left memory and handed the lease back) is woken by whichever node the webhook reaches.
 * Real Runtimes on one real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: Harness;
let b: Harness;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startHarness({}, undefined, { databaseUrl: database.postgres.url }),
    startHarness({}, undefined, { databaseUrl: database.postgres.url, maxLoadedOwners: 1 }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const LISTEN = '[[tool:wait_for_event {"source":"github","match":{"event":"pull_request","action":"closed"}}]]';
const CLOSED = { name: "pull_request", delivery: "d-1", payload: { action: "closed", repository: { full_name: "o/r" } } };

describe("a GitHub webhook on a cluster", () => {
  it("wakes an objective waiting on a conversation no node holds, from any node", async () => {
    const id = (await b.runtime.createConversation({ text: "set up" })).conversation.id;
    await pollUntil(async () => (await b.runtime.pages.getConversation(id)).status === "idle", { what: "idle" });
    await b.runtime.openObjective(id, `merge the fix ${LISTEN}`);
    await pollUntil(async () => (await b.runtime.pages.getConversation(id)).objective?.status === "waiting_event", { what: "the objective waiting" });
    await pollUntil(async () => (await b.runtime.pages.getConversation(id)).status === "idle", { what: "idle, waiting" });
    // B's idle owner leaves memory for another conversation (once nothing of it runs): nobody holds the waiting one now.
    await pushOutIdleOwner(b, async () => (await a.runtime.cluster!.placement.holders([id])).size === 0, "the lease handed back", "another");
    // The webhook reaches A, which never held the conversation.
    expect(await a.runtime.deliverGithubEvent(CLOSED)).toBe(1);
    await pollUntil(async () => ((await a.runtime.pages.getConversation(id)).objective?.slices ?? 0) > 1, { what: "a new slice" });
  });

  it("wakes what it can when a holder cannot be reached: that conversation stays waiting, the log says so, the rest are woken", async () => {
    const listen = '[[tool:wait_for_event {"source":"github","match":{"event":"issues","action":"closed"}}]]';
    const issueClosed = { name: "issues", delivery: "d-2", payload: { action: "closed", repository: { full_name: "o/r" } } };
    const waitingOn = async (node: Harness) => {
      const id = (await node.runtime.createConversation({ text: "set up" })).conversation.id;
      await pollUntil(async () => (await node.runtime.pages.getConversation(id)).status === "idle", { what: "idle" });
      await node.runtime.openObjective(id, `close the issue ${listen}`);
      await pollUntil(async () => (await node.runtime.pages.getConversation(id)).objective?.status === "waiting_event", { what: "the objective waiting" });
      await pollUntil(async () => (await node.runtime.pages.getConversation(id)).status === "idle", { what: "idle, waiting" });
      return id;
    };
    const onB = await waitingOn(b);
    const onA = await waitingOn(a);
    expect(a.runtime.cluster!.placement.isHere(onA)).toBe(true);
    expect([...(await a.runtime.cluster!.placement.holders([onB])).values()]).toEqual([b.cluster!.node.id]);
    // B's address, as A would reach it, has nothing listening.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const gone = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    const registered = { nodeId: a.cluster!.node.id, nodeUrl: null, signatures: a.cluster!.signatures, nodes: a.cluster!.node.nodes };
    const logged: string[] = [];
    const matched = await a.runtime.deliverGithubEvent(issueClosed, {
      elsewhere: (id, holder) => wakeOnHolder(registered, { ...holder, url: gone }, id, issueClosed, (line) => logged.push(line)),
    });
    expect(matched).toBe(1);
    expect(logged).toEqual([expect.stringContaining(`did not wake conversation ${onB}: its holder, node ${b.cluster!.node.id}, at ${gone}, cannot be reached`)]);
    await pollUntil(async () => ((await a.runtime.pages.getConversation(onA)).objective?.slices ?? 0) > 1, { what: "A's new slice" });
    expect((await b.runtime.pages.getConversation(onB)).objective?.status).toBe("waiting_event");
  });
});
