import { afterAll, describe, expect, it } from "vitest";
import { Store } from "@/lib/store/store";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { freePort } from "../../support/mcp-servers";
import { pollUntil } from "../../support/poll";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "../cli/run-atrium";
import { createConversation } from "../store/conversation-fixtures";

/**
 * DESIGN §2 and §10c together: a migrated conversation is a copied one. A turn that was open in
 * the data directory it came from is closed `imported` by the node that takes it (its proof is
 * not the cluster's), so nothing it had asked for runs there; the conversation goes on.
 */
const database = usePostgresPerFile();
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe("a migrated conversation in a cluster", () => {
  it("has the turn left open where it came from closed as imported by the node that takes it, and takes new messages", async () => {
    const source = makeTempHome("atrium-migrate-open-");
    cleanups.push(source.cleanup);
    const store = new Store(source.home, { log: () => undefined });
    const conversation = await createConversation(store, { title: "Left running", texts: ["first"] });
    const turnId = store.newId();
    const messageId = store.newId();
    const sessionId = conversation.rootSessionId;
    await store.appendSession(conversation.conversationId, sessionId, {
      type: "item.created",
      item: { id: messageId, sessionId, turnId, kind: "user_message", status: "completed", text: "rm -rf build, please", createdAt: store.now().toISOString() },
    });
    await store.appendMetadata(conversation.conversationId, { type: "turn.started", turnId, sessionId, model: "offline", effort: null, inputMessageIds: [messageId] });
    await store.close();
    expect((await runAtrium(["migrate", "--to", database.postgres.url], { home: source.home })).status).toBe(0);

    const node: ClusterServer = await startClusterServer(database.postgres.url, await freePort());
    cleanups.push(() => node.cleanup());
    const read = await node.api(`/api/conversations/${conversation.conversationId}`);
    expect(read.status).toBe(200);
    const turn = await pollUntil(
      async () => {
        const current = ((await (await node.api(`/api/turns/${turnId}`)).json()) as { turn: { status: string; error: { code: string } | null } }).turn;
        return current.status !== "running" && current;
      },
      { timeoutMs: 20_000, what: "the migrated open turn to be closed" },
    );
    expect(turn.status).toBe("interrupted");
    expect(turn.error?.code).toBe("imported");

    const sent = await node.api(`/api/conversations/${conversation.conversationId}/messages`, { method: "POST", body: JSON.stringify({ text: "carry on here" }) });
    expect(sent.status).toBe(202);
    const { turn: next } = (await sent.json()) as { turn: { id: string } };
    const ended = await pollUntil(
      async () => {
        const { status } = ((await (await node.api(`/api/turns/${next.id}`)).json()) as { turn: { status: string } }).turn;
        return status !== "running" && status !== "queued" && status;
      },
      { timeoutMs: 20_000, what: "the new turn to end" },
    );
    expect(ended).toBe("completed");
  }, 90_000);
});
