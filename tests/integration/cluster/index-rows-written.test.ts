import { getTableConfig } from "drizzle-orm/sqlite-core";
import type pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openIndex, type IndexDatabase } from "@/lib/store/database";
import { createIdGenerator } from "@/lib/store/ids";
import { IndexWriter } from "@/lib/store/index-writer";
import { IndexReplica } from "@/lib/store/postgres/index-replica";
import { databasePool } from "@/lib/store/postgres/database-json";
import { INDEX_TABLES } from "@/lib/store/postgres/index-row-copy";
import { PG_INDEX_PREFIX } from "@/lib/store/postgres/index-tables";
import { Leases, type Lease } from "@/lib/store/postgres/leases";
import { LeaseLostError, PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { RecordProofs } from "@/lib/store/record-proofs";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";
import { postgresIndexDump, sqliteIndexDump } from "../../support/index-tables-dump";
import { appendEveryRecordType, type RecordWriter } from "../store/every-record-type";

/**
 * Issue 24, step (d): an owner's index rows go into the cluster's atrium_index_* tables in the
 * transaction that appends their records. Each node here is what a ClusterNode puts together (its
 * fenced record store, its SQLite index replica, the replica's rows written with the records),
 * on real PostgreSQL; the whole tables are compared, SQLite's against PostgreSQL's.
 */
const newId = createIdGenerator();
const database = usePostgresPerFile();
const cleanups: Array<() => Promise<void> | void> = [];
let nodePool: pg.Pool | null = null;

/** A pool as a node has it (DATABASE_TYPES: jsonb read back through parseDatabaseJson, so NUL in a record stays NUL). */
function pool(): pg.Pool {
  nodePool ??= databasePool(database.postgres.url, 8, () => undefined);
  return nodePool;
}

afterAll(async () => {
  await nodePool?.end();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  const tables = INDEX_TABLES.map(([table]) => `"${PG_INDEX_PREFIX}${getTableConfig(table).name}"`);
  await database.pool.query(`TRUNCATE atrium_records, atrium_leases, atrium_creation_keys, ${tables.join(", ")}`);
  await database.pool.query("DROP FUNCTION IF EXISTS test_refuse() CASCADE");
});

interface Node extends RecordWriter {
  index: IndexDatabase;
  replica: IndexReplica;
  leases: Leases;
  held: Map<string, Lease>;
}

/**
 * A node: its own SQLite index (a replica fed only by its own writes and catch-ups) and a record
 * store writing its rows with its records (`writesRows: false`: a node of the version before).
 */
function clusterNode(options: { writesRows?: boolean } = {}): Node {
  const { home, cleanup } = makeTempHome();
  const index = openIndex(":memory:");
  const replica = new IndexReplica(pool(), index.$client, new IndexWriter(index.$client, new RecordProofs(home)));
  const held = new Map<string, Lease>();
  const leases = new Leases(pool(), newId(), 30);
  const records = new PostgresRecordStore(pool(), (conversationId) => held.get(conversationId) ?? null);
  if (options.writesRows !== false) records.writeIndexRows(replica.ownRows());
  cleanups.push(cleanup, () => void index.$client.close());
  // As ClusterRecords does: appended (and indexed, rows written, in one transaction), then handed to the replica.
  return {
    index,
    replica,
    leases,
    held,
    newId,
    now: () => new Date(),
    async appendMetadata(conversationId, body) {
      if (!held.has(conversationId)) held.set(conversationId, await leases.take(conversationId));
      const record = await records.appendMetadata(conversationId, body);
      await replica.applyWritten(conversationId, [{ stream: "metadata", record }]);
      return record;
    },
    async appendSession(conversationId, sessionId, body) {
      const record = await records.appendSession(conversationId, sessionId, body);
      await replica.applyWritten(conversationId, [{ stream: sessionId, record }]);
      return record;
    },
  };
}

async function recordCount(conversationId: string): Promise<number> {
  const rows = await database.pool.query<{ n: string }>("SELECT count(*) AS n FROM atrium_records WHERE conversation_id = $1", [conversationId]);
  return Number(rows.rows[0]!.n);
}

/** A PostgreSQL fault in the index rows' statement (or at COMMIT when `deferred`): any items row whose text is "refuse me". */
async function refuseItemsText(deferred: boolean): Promise<void> {
  await database.pool.query(`CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.text = 'refuse me' THEN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '53100'; END IF; RETURN NEW; END $$`);
  await database.pool.query(
    deferred
      ? `CREATE CONSTRAINT TRIGGER test_refuse AFTER INSERT OR UPDATE ON ${PG_INDEX_PREFIX}items DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse()`
      : `CREATE TRIGGER test_refuse BEFORE INSERT OR UPDATE ON ${PG_INDEX_PREFIX}items FOR EACH ROW EXECUTE FUNCTION test_refuse()`,
  );
}

const message = (node: Node, sessionId: string, text: string) => ({
  type: "item.created" as const,
  item: { id: node.newId(), sessionId, turnId: null, kind: "user_message" as const, status: "completed" as const, text, createdAt: new Date().toISOString() },
});

describe("index rows written with their records", () => {
  it("hold in PostgreSQL exactly the rows the owner's SQLite index holds, for every record type, a deletion and NUL in text", async () => {
    const a = clusterNode();
    const kept = await appendEveryRecordType(a, "kept \u0000 \ud800 \uffff");
    const gone = await appendEveryRecordType(a, "gone");
    await a.appendMetadata(gone.conversationId, { type: "conversation.deleted", conversationId: gone.conversationId });
    const fromSqlite = await sqliteIndexDump(a.index);
    expect(fromSqlite.items!.length).toBeGreaterThan(5);
    expect(fromSqlite.conversations).toHaveLength(1);
    expect(await postgresIndexDump(database.pool)).toEqual(fromSqlite);
    expect(kept.metadata.length).toBeGreaterThan(10);
    // NUL and U+FFFF reached both as they were written (SQLite itself keeps no lone surrogate).
    expect(fromSqlite.conversations![0]).toContain(JSON.stringify("kept \u0000 ").slice(1, -1));
    expect(fromSqlite.conversations![0]).toContain("\uffff, renamed");
  });

  it("refuse a stale owner's records and rows alike, and the new owner's rows follow its own index, caught up in its transaction", async () => {
    const a = clusterNode();
    const written = await appendEveryRecordType(a, "taken over");
    const before = await postgresIndexDump(database.pool);
    const records = await recordCount(written.conversationId);
    // Node B takes the lease (A's has run out) without having heard any of A's records.
    await database.pool.query("UPDATE atrium_leases SET expires_at = clock_timestamp() - interval '1 second'");
    const b = clusterNode();
    b.held.set(written.conversationId, await b.leases.take(written.conversationId));

    await expect(a.appendSession(written.conversationId, written.rootSessionId, message(a, written.rootSessionId, "from the stale owner"))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await recordCount(written.conversationId)).toBe(records);
    expect(await postgresIndexDump(database.pool)).toEqual(before);
    expect(await sqliteIndexDump(a.index)).toEqual(before);

    await b.appendSession(written.conversationId, written.rootSessionId, message(b, written.rootSessionId, "from the new owner"));
    const fromB = await sqliteIndexDump(b.index);
    expect(fromB.items!.some((row) => row.includes("from the new owner"))).toBe(true);
    expect(fromB.items!.some((row) => row.includes("from the stale owner"))).toBe(false);
    expect(await postgresIndexDump(database.pool)).toEqual(fromB);
  });

  it("hold a conversation whole once its owner first writes it, when nodes of the version before wrote it (an upgraded cluster)", async () => {
    const old = clusterNode({ writesRows: false });
    const written = await appendEveryRecordType(old, "written before");
    expect((await postgresIndexDump(database.pool)).items).toEqual([]);
    await database.pool.query("UPDATE atrium_leases SET expires_at = clock_timestamp() - interval '1 second'");
    const b = clusterNode();
    // B's index has every record already (its feed caught it up): only the new message's rows change.
    await b.replica.catchUpAll();
    b.held.set(written.conversationId, await b.leases.take(written.conversationId));
    await b.appendSession(written.conversationId, written.rootSessionId, message(b, written.rootSessionId, "after the upgrade"));
    const fromB = await sqliteIndexDump(b.index);
    expect(fromB.items!.length).toBeGreaterThan(5);
    expect(await postgresIndexDump(database.pool)).toEqual(fromB);
  });

  it("leave nothing of a creation whose transaction fails at COMMIT on the node, not even its request key, while the transaction is open or after", async () => {
    const a = clusterNode();
    await database.pool.query(`CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '53100'; END $$`);
    await database.pool.query(`CREATE CONSTRAINT TRIGGER test_refuse AFTER INSERT ON ${PG_INDEX_PREFIX}conversations DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse()`);
    const conversationId = a.newId();
    const rootSessionId = a.newId();
    const creation = {
      type: "conversation.created" as const,
      conversationId, title: "Never was", titleSource: "auto" as const, agent: "default", model: "offline", effort: "medium" as const,
      cwd: "/srv/project", executor: "local", rootSessionId, forkedFrom: null, protected: false,
      requestKey: "create-once", requestHash: "hash-create",
    };
    const keys = () => a.index.$client.prepare("SELECT count(*) FROM request_keys WHERE key = 'create-once'").pluck().get();
    const shown = () => a.index.$client.prepare("SELECT count(*) FROM conversations WHERE id = ?").pluck().get(conversationId);
    // The index rows are written (and the transaction still open) before the COMMIT refuses them:
    // the node's own index must not show the conversation meanwhile, nor keep its key after.
    const seen: unknown[] = [];
    const watching = setInterval(() => seen.push(shown(), keys()), 0);
    await expect(a.appendMetadata(conversationId, creation)).rejects.toThrow(/refused by the test/);
    clearInterval(watching);
    expect(seen.every((count) => count === 0)).toBe(true);
    expect([shown(), keys()]).toEqual([0, 0]);
    expect(await recordCount(conversationId)).toBe(0);

    // The retry under the same key creates it (a kept key would have named a conversation that never was).
    await database.pool.query("DROP FUNCTION test_refuse() CASCADE");
    await a.appendMetadata(conversationId, creation);
    expect([shown(), keys()]).toEqual([1, 1]);
    expect(await postgresIndexDump(database.pool)).toEqual(await sqliteIndexDump(a.index));
  });

  for (const deferred of [false, true]) {
    it(`leave a node's SQLite rows equal to PostgreSQL's when the transaction fails ${deferred ? "at COMMIT" : "writing the rows"}, and write again after`, async () => {
      const a = clusterNode();
      const written = await appendEveryRecordType(a, "faulted");
      const before = await postgresIndexDump(database.pool);
      const records = await recordCount(written.conversationId);
      await refuseItemsText(deferred);

      await expect(a.appendSession(written.conversationId, written.rootSessionId, message(a, written.rootSessionId, "refuse me"))).rejects.toThrow(/refused by the test/);
      expect(await recordCount(written.conversationId)).toBe(records);
      expect(await postgresIndexDump(database.pool)).toEqual(before);
      // Never applied here: the node's index takes a batch once it is committed.
      expect(await sqliteIndexDump(a.index)).toEqual(before);

      await a.appendSession(written.conversationId, written.rootSessionId, message(a, written.rootSessionId, "accepted"));
      const after = await sqliteIndexDump(a.index);
      expect(after.items!.some((row) => row.includes("accepted"))).toBe(true);
      expect(await postgresIndexDump(database.pool)).toEqual(after);
    });
  }
});
