import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIdGenerator } from "@/lib/store/ids";
import { claimCreationKey, findKeyedCreation, giveBackCreationKey } from "@/lib/store/postgres/creation-keys";
import { Leases, type Lease } from "@/lib/store/postgres/leases";
import { PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { RecordFeed } from "@/lib/store/postgres/record-feed";
import { isCreationKeyClaimed } from "@/lib/store/store-cluster";
import { conversationCreated, rootSessionCreated } from "../../support/conversation-records";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";

/**
 * DESIGN §8, §10c: a creation's requestKey is claimed in the transaction that writes the
 * conversation's first records, on a real PostgreSQL. Of two claims at once the database keeps
 * one; a claim never outlives a transaction that did not commit; a claim given back is free.
 */
const newId = createIdGenerator();
const database = usePostgresPerFile();
let feed: RecordFeed;

beforeAll(async () => {
  feed = new RecordFeed({ pool: database.pool, connectionString: database.postgres.url });
  await feed.start();
});

afterAll(async () => {
  await feed?.stop();
});

/** One node's record store and the leases it holds. */
function node() {
  const leases = new Leases(database.pool, newId(), 10);
  const held = new Map<string, Lease>();
  const records = new PostgresRecordStore(database.pool, (conversationId) => held.get(conversationId) ?? null);
  return {
    records,
    /** A new conversation's first records under `key`, its lease taken first as ClusterRecords.create does. */
    async create(conversationId: string, key: string, hash = "hash-1") {
      held.set(conversationId, await leases.take(conversationId));
      const rootSessionId = newId();
      const entries = [
        { stream: "metadata", body: { ...conversationCreated(conversationId, rootSessionId), requestKey: key, requestHash: hash } },
        { stream: "metadata", body: rootSessionCreated(rootSessionId) },
      ];
      return records.appendAll(conversationId, entries, { requestKey: key, requestHash: hash });
    },
  };
}

async function recordCount(conversationId: string): Promise<number> {
  const rows = await database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM atrium_records WHERE conversation_id = $1", [conversationId]);
  return rows.rows[0]!.n;
}

describe("creation keys", () => {
  it("keeps one of two creations claiming a key at once; the other writes nothing and names the winner", async () => {
    for (let round = 0; round < 10; round++) {
      const key = `claim-race-${round}`;
      const ids = [newId(), newId()];
      const outcomes = await Promise.allSettled([node().create(ids[0]!, key), node().create(ids[1]!, key)]);
      const won = outcomes.findIndex((outcome) => outcome.status === "fulfilled");
      const lost = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult | undefined;
      expect(won).toBeGreaterThanOrEqual(0);
      expect(lost, `round ${round}: both creations were kept`).toBeDefined();
      expect(isCreationKeyClaimed(lost!.reason)).toBe(true);
      expect(lost!.reason.claimedBy).toBe(ids[won]);
      expect(await recordCount(ids[1 - won]!)).toBe(0);
      expect(await recordCount(ids[won]!)).toBe(2);
    }
  });

  it("leaves no claim behind when the transaction holding it dies before commit (a node killed part-way)", async () => {
    const key = "claim-of-a-dead-node";
    const client = await database.pool.connect();
    client.on("error", () => undefined);
    await client.query("BEGIN");
    await claimCreationKey(client, newId(), key, "hash-1");
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    // Another creation meanwhile (its insert waits while the claim's transaction is open)…
    const conversationId = newId();
    const waiting = node().create(conversationId, key);
    await database.pool.query("SELECT pg_terminate_backend($1)", [pid]);
    client.release(true);
    // …takes the key: the dead transaction's claim never committed.
    await waiting;
    expect(await findKeyedCreation(database.pool, feed, key, "hash-2")).toEqual({ conversationId, requestHash: "hash-1" });
  });

  it("frees a key whose creation was undone, so the retry creates again", async () => {
    const key = "claim-given-back";
    const first = newId();
    await node().create(first, key);
    await giveBackCreationKey(database.pool, first);
    expect(await findKeyedCreation(database.pool, feed, key, "hash-1")).toBeNull();
    const second = newId();
    await node().create(second, key);
    expect(await findKeyedCreation(database.pool, feed, key, "hash-2")).toEqual({ conversationId: second, requestHash: "hash-1" });
  });

  it("answers a lookup with the same body once the first turn is recorded, and one with another body at once", async () => {
    const key = "claim-waits-for-first-turn";
    const conversationId = newId();
    const writer = node();
    await writer.create(conversationId, key);
    // Another body: answered now (idempotency_conflict needs no first turn).
    expect(await findKeyedCreation(database.pool, feed, key, "another")).toEqual({ conversationId, requestHash: "hash-1" });
    // The pool as the lookup sees it, counting the queries it has been answered.
    let answeredQueries = 0;
    const counted = {
      query: async (...args: Parameters<Pool["query"]>) => {
        const result = await (database.pool.query as (...args: unknown[]) => Promise<unknown>)(...args);
        answeredQueries++;
        return result;
      },
    } as unknown as Pool;
    let answered = false;
    const same = findKeyedCreation(counted, feed, key, "hash-1").then((found) => {
      answered = true;
      return found;
    });
    // It has read the claim and looked at the conversation once: with no first turn, it waits.
    await pollUntil(() => answeredQueries >= 2, { what: "the lookup's first look at the conversation" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    await writer.records.appendMetadata(conversationId, { type: "turn.started", turnId: newId(), sessionId: newId(), model: "offline", effort: null, inputMessageIds: [] });
    expect(await same).toEqual({ conversationId, requestHash: "hash-1" });
  });

  it("answers a same-body lookup at once when no node holds the conversation any more (its creator died before the first message)", async () => {
    const key = "claim-of-a-creator-gone";
    const conversationId = newId();
    await node().create(conversationId, key);
    // As if its node had died: its lease ran out, so nobody will record the first turn.
    await database.pool.query("UPDATE atrium_leases SET expires_at = now() - interval '1 second' WHERE conversation_id = $1", [conversationId]);
    const started = Date.now();
    expect(await findKeyedCreation(database.pool, feed, key, "hash-1")).toEqual({ conversationId, requestHash: "hash-1" });
    // Well inside the 15 s it would wait for a live creator.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
