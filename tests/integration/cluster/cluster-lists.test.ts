import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as queries from "@/lib/store/queries";
import { backfillIndexRows } from "@/lib/store/postgres/index-backfill";
import { deleteConversationRows } from "@/lib/store/postgres/index-row-write";
import { pauseListeners, usePostgresPerFile } from "../../support/embedded-postgres";
import { postgresIndexDump } from "../../support/index-tables-dump";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24, step (f): a node of a cluster answers the API's lists from the cluster's index tables
 * in PostgreSQL, which an owner writes in the transaction of its records: a list on one node shows
 * what another node wrote as soon as its write is answered, with no notice heard. Two real
 * Runtimes, nodes of one real PostgreSQL.
 */
const database = usePostgresPerFile();
const ALL = { archived: "all", offset: 0, limit: 100 } as const;
const SHELL_TURN = `[[tool:shell ${JSON.stringify({ command: "echo listed" })}]]`;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  [a, b] = await Promise.all([startHarness({}, undefined, { databaseUrl: database.postgres.url }), startHarness({}, undefined, { databaseUrl: database.postgres.url })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

async function listed(harness: Harness, q?: string): Promise<string[]> {
  return (await harness.runtime.listConversations({ ...ALL, ...(q ? { q } : {}) })).conversations.map((conversation) => conversation.id);
}

/** A conversation's rows in the cluster's index tables and search tables (search rows without their positions). */
async function clusterRows(conversationId: string): Promise<unknown> {
  const search = async (table: string) =>
    (await database.pool.query(`SELECT to_jsonb(t) - 'position' AS row FROM ${table} t WHERE conversation_id = $1 ORDER BY (to_jsonb(t) - 'position')::text`, [conversationId])).rows;
  return {
    ...(await postgresIndexDump(database.pool, [conversationId])),
    itemSearch: await search("atrium_index_item_search"),
    titleSearch: await search("atrium_index_title_search"),
  };
}

/** The conversation's rows gone from the cluster's tables, its records kept. */
async function dropRows(conversationId: string): Promise<void> {
  const client = await database.pool.connect();
  try {
    await deleteConversationRows(client, conversationId);
  } finally {
    client.release();
  }
}

describe("lists on a node of a cluster", () => {
  it("show what another node wrote as soon as it answered, with no notice heard: conversations, a search, pending approvals", async () => {
    const resume = await pauseListeners(database.pool);
    try {
      const plain = await b.runtime.createConversation({ text: "zanzibar marmalade please" });
      const asking = await b.runtime.createConversation({ text: SHELL_TURN });
      const requested = await b.waitForEvent(asking.conversation.id, "approval.requested");
      // A heard nothing: its own index has neither conversation.
      expect(queries.conversationRow(a.runtime.store.index, plain.conversation.id)).toBeUndefined();
      expect(queries.conversationRow(a.runtime.store.index, asking.conversation.id)).toBeUndefined();

      expect(await listed(a)).toEqual(expect.arrayContaining([plain.conversation.id, asking.conversation.id]));
      expect(await listed(a, "zanzib")).toEqual([plain.conversation.id]);
      expect((await a.runtime.listApprovals("pending")).map((approval) => approval.id)).toContain(requested.approval.id);
      // Conversation.node still names the holder, as the route adds it.
      const shown = (await a.runtime.withHolders((await a.runtime.listConversations(ALL)).conversations)).find((conversation) => conversation.id === plain.conversation.id);
      expect(shown?.node).toBe(b.cluster!.node.id);
    } finally {
      resume();
    }
  });

  it("leave out a creation undone on another node, whose rows are gone from the cluster's tables and every node's index", async () => {
    // The first message of this creation is refused by the database: the creation is undone.
    await database.pool.query(`CREATE FUNCTION test_refuse_first_message() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.record->>'type' = 'item.created' AND NEW.record::text LIKE '%refused first words%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await database.pool.query("CREATE TRIGGER test_refuse_first_message BEFORE INSERT ON atrium_records FOR EACH ROW EXECUTE FUNCTION test_refuse_first_message()");
    try {
      await expect(b.runtime.createConversation({ text: "refused first words", requestKey: "undone-1" })).rejects.toThrow();
    } finally {
      await database.pool.query("DROP FUNCTION test_refuse_first_message() CASCADE");
    }
    const created = await database.pool.query<{ conversation_id: string }>(
      "SELECT conversation_id FROM atrium_records WHERE stream = 'metadata' AND seq = 1 AND record->>'requestKey' = 'undone-1'",
    );
    expect(created.rows).toHaveLength(1);
    const undone = created.rows[0]!.conversation_id;

    expect(await clusterRows(undone)).toMatchObject({ conversations: [], sessions: [], itemSearch: [], titleSearch: [] });
    // Nor does its creation's requestKey stay in the index tables (as one node forgets it).
    const keys = await database.pool.query("SELECT key FROM atrium_index_request_keys WHERE scope = '' AND key = 'undone-1'");
    expect(keys.rows).toEqual([]);
    expect(await listed(a)).not.toContain(undone);
    expect(await listed(b)).not.toContain(undone);
    expect(await listed(a, "refused")).toEqual([]);
    await pollUntil(() => queries.conversationRow(a.runtime.store.index, undone) === undefined, { what: "node A's index dropping the undone creation" });
    expect(queries.conversationRow(b.runtime.store.index, undone)).toBeUndefined();

    // Its requestKey is free: the retry creates the conversation whole.
    const retried = await b.runtime.createConversation({ text: "refused first words", requestKey: "undone-1" });
    expect(retried.conversation.id).not.toBe(undone);
    expect(await listed(a, "refused")).toEqual([retried.conversation.id]);
  });

  it("gain, at a node's start, the rows of conversations written by nodes that wrote none; two nodes starting at once (or two backfills) write them once", async () => {
    const created = await a.runtime.createConversation({ text: "written before the index rows were" });
    await a.turnEnded(created.conversation.id, created.turn.id);
    const id = created.conversation.id;
    const rows = await clusterRows(id);
    expect(rows).toMatchObject({ conversations: [expect.any(String)] });
    // As a node of the version before left it: records, no index rows.
    await dropRows(id);
    expect(await clusterRows(id)).toMatchObject({ conversations: [], items: [], titleSearch: [] });
    expect(await listed(b)).not.toContain(id);

    const [c, d] = await Promise.all([startHarness({}, undefined, { databaseUrl: database.postgres.url }), startHarness({}, undefined, { databaseUrl: database.postgres.url })]);
    try {
      expect(await clusterRows(id)).toEqual(rows);
      expect(await listed(b)).toContain(id);
      expect(await listed(c, "written before")).toEqual([id]);
      expect(await listed(d)).toContain(id);
    } finally {
      await Promise.all([c.close(), d.close()]);
    }

    // Two backfills at once: the conversation's rows are written by one of them.
    await dropRows(id);
    const counts = await Promise.all([0, 1].map(() => backfillIndexRows(database.pool, a.home, a.cluster!.node.recordKey)));
    expect(counts.sort()).toEqual([0, 1]);
    expect(await clusterRows(id)).toEqual(rows);
  }, 60_000);
});
