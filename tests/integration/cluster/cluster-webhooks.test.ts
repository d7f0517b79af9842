import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
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
    await pollUntil(
      async () => {
        const other = (await b.runtime.createConversation({ text: "another" })).conversation.id;
        await pollUntil(async () => (await b.runtime.pages.getConversation(other)).status === "idle", { what: "the other idle" });
        return (await a.runtime.cluster!.placement.holders([id])).size === 0;
      },
      { what: "the lease handed back" },
    );
    // The webhook reaches A, which never held the conversation.
    expect(await a.runtime.deliverGithubEvent(CLOSED)).toBe(1);
    await pollUntil(async () => ((await a.runtime.pages.getConversation(id)).objective?.slices ?? 0) > 1, { what: "a new slice" });
  });
});
