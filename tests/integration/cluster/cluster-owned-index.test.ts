import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListEvent } from "@/lib/events/events";
import * as queries from "@/lib/store/queries";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24, step (f), DESIGN §10c ("the data directory keeps only the node's own config"): a
 * node's SQLite index holds only the conversations whose leases it holds, in memory. A
 * conversation's rows are read in when the node takes its lease and leave when the lease goes;
 * other nodes' writes index nothing here. Real Runtimes on one real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: Harness;
let b: Harness;

beforeAll(async () => {
  // B keeps one idle owner in memory: a second conversation hands the first one's lease back.
  [a, b] = await Promise.all([
    startHarness({}, undefined, { databaseUrl: database.postgres.url }),
    startHarness({}, undefined, { databaseUrl: database.postgres.url, maxLoadedOwners: 1 }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const indexed = (harness: Harness, conversationId: string) => queries.conversationRow(harness.runtime.store.index, conversationId) !== undefined;
const indexedConversations = (harness: Harness) => (harness.runtime.store.index.$client.prepare("SELECT id FROM conversations ORDER BY id").all() as Array<{ id: string }>).map((row) => row.id);

async function idleOn(harness: Harness, conversationId: string): Promise<void> {
  await pollUntil(async () => (await harness.runtime.pages.getConversation(conversationId)).status === "idle", { what: "the conversation idle" });
}

describe("a node's index", () => {
  it("is not on the node's disk", () => {
    for (const harness of [a, b]) {
      expect(harness.runtime.store.index.$client.memory).toBe(true);
      expect(fs.existsSync(path.join(harness.home, "metadata.db"))).toBe(false);
      expect(fs.readdirSync(harness.home).filter((name) => name.startsWith("metadata.db") || name.endsWith(".sqlite"))).toEqual([]);
    }
  });

  it("holds nothing of another node's conversations, whatever it hears of them", async () => {
    const heard: ListEvent[] = [];
    const stop = a.runtime.subscribeList((delivered) => heard.push(delivered.event));
    try {
      const made = await b.runtime.createConversation({ text: "written on B [[stream:5]]" });
      const id = made.conversation.id;
      await idleOn(b, id);
      // A heard B's records (its sidebar was told the conversation went idle)…
      await pollUntil(() => heard.some((event) => event.type === "conversation.updated" && event.conversationId === id && event.conversation.status === "idle"), {
        what: "A hearing B's conversation idle",
      });
      // …and indexed none of them.
      expect(indexed(a, id)).toBe(false);
      expect(indexed(b, id)).toBe(true);
      expect(indexedConversations(a)).toEqual([]);
    } finally {
      stop();
    }
  });

  it("reads a conversation in when its lease is taken, and lets it go when the lease is handed back", async () => {
    const first = (await b.runtime.createConversation({ text: "first on B" })).conversation.id;
    await idleOn(b, first);
    expect(indexed(b, first)).toBe(true);
    // A second conversation on B: the first one's idle owner is evicted and its lease handed back.
    const second = (await b.runtime.createConversation({ text: "second on B" })).conversation.id;
    await idleOn(b, second);
    await pollUntil(() => !b.runtime.cluster!.placement.isHere(first) && !indexed(b, first), { what: "B letting the first conversation go" });
    expect(indexed(b, second)).toBe(true);

    // A needs it: A takes the lease, and its index has the conversation whole, as B's pages had it.
    const before = await b.runtime.pages.listItems(first, {});
    expect((await a.runtime.locate(first)).kind).toBe("here");
    expect(indexed(a, first)).toBe(true);
    expect(a.runtime.listItems(first, {})).toEqual(before);
    expect(a.runtime.listTurns(first)).toEqual(await b.runtime.pages.listTurns(first));
    const sent = await a.runtime.sendMessage(first, { text: "now on A", mode: "auto" });
    await a.turnEnded(first, sent.turn!.id);
    expect(indexed(b, first)).toBe(false);
  });

  it("answers not_found for a command to a conversation deleted on either node, on both", async () => {
    const id = (await b.runtime.createConversation({ text: "soon deleted" })).conversation.id;
    await idleOn(b, id);
    await b.runtime.deleteConversation(id);
    for (const harness of [a, b]) {
      // B hands the deleted conversation's lease back a moment after the deletion answered.
      await pollUntil(async () => (await harness.runtime.locate(id, { fresh: true })).kind === "missing", { what: "the deleted conversation missing" });
      const refused = await harness.runtime.sendMessage(id, { text: "anyone?", mode: "auto" }).then(
        () => null,
        (error: unknown) => error as { code: string },
      );
      expect(refused?.code).toBe("not_found");
      expect(indexed(harness, id)).toBe(false);
    }
  });

  it("takes over a conversation of a node that stops cleanly", async () => {
    const kept = (await b.runtime.createConversation({ text: "held by B when it stops" })).conversation.id;
    await idleOn(b, kept);
    const held = indexedConversations(b);
    expect(held).toContain(kept);
    for (const id of held) expect(indexed(a, id)).toBe(false);
    await b.close();
    for (const id of held) {
      expect((await a.runtime.locate(id)).kind).toBe("here");
      expect(indexed(a, id)).toBe(true);
      expect(a.runtime.getConversation(id).id).toBe(id);
    }
  });
});
