import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openIndex, type IndexDatabase } from "@/lib/store/database";
import { createIdGenerator } from "@/lib/store/ids";
import { IndexWriter } from "@/lib/store/index-writer";
import { ingestConversation } from "@/lib/store/ingest";
import * as queries from "@/lib/store/queries";
import { IndexReplica } from "@/lib/store/postgres/index-replica";
import { Leases, type Lease } from "@/lib/store/postgres/leases";
import { PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { RecordFeed } from "@/lib/store/postgres/record-feed";
import { RecordProofs } from "@/lib/store/record-proofs";
import { Store } from "@/lib/store/store";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";
import { appendEveryRecordType, type RecordWriter } from "../store/every-record-type";

const newId = createIdGenerator();
const database = usePostgresPerFile();
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Node A: writes through PostgreSQL with the leases it takes. */
function writingNode(): RecordWriter {
  const held = new Map<string, Lease>();
  const leases = new Leases(database.pool, newId(), 30);
  const records = new PostgresRecordStore(database.pool, (conversationId) => held.get(conversationId) ?? null);
  return {
    newId,
    now: () => new Date(),
    async appendMetadata(conversationId, body) {
      if (!held.has(conversationId)) held.set(conversationId, await leases.take(conversationId));
      return records.appendMetadata(conversationId, body);
    },
    appendSession: (conversationId, sessionId, body) => records.appendSession(conversationId, sessionId, body),
  };
}

/** Node B: an index of its own (in memory), kept up by its feed, or only caught up when `follow` is false. */
async function replicaNode(options: { follow?: boolean } = {}) {
  const { home, cleanup } = makeTempHome();
  const index = openIndex(":memory:");
  const replica = new IndexReplica(database.postgres.pool(), index.$client, new IndexWriter(index.$client, new RecordProofs(home)));
  const feed = new RecordFeed({ pool: database.postgres.pool(), connectionString: database.postgres.url });
  cleanups.push(cleanup, () => void index.$client.close(), () => feed.stop());
  if (options.follow !== false) {
    await feed.start();
    replica.follow(feed);
  }
  await replica.catchUpAll();
  return { index, replica };
}

/** The same records as JSONL files in a data directory, indexed as `atrium reindex` would. */
async function indexFromFiles(conversationId: string): Promise<IndexDatabase> {
  const { home, cleanup } = makeTempHome();
  const store = new Store(home, { log: () => undefined });
  cleanups.push(cleanup, () => store.close());
  const directory = store.paths.conversation(conversationId);
  fs.mkdirSync(directory, { recursive: true });
  const rows = await database.pool.query<{ stream: string; record: Record<string, unknown> }>(
    "SELECT stream, record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream, seq",
    [conversationId],
  );
  for (const row of rows.rows) {
    const file = row.stream === "metadata" ? "metadata.jsonl" : `${row.stream}.jsonl`;
    const { v, seq, at, type, ...rest } = row.record;
    fs.appendFileSync(path.join(directory, file), `${JSON.stringify({ v, seq, at, type, ...rest })}\n`);
  }
  expect(ingestConversation(store, conversationId, { fresh: true }).status).toBe("indexed");
  return store.index;
}

/** What a node answers about one conversation from its index. */
function answers(db: IndexDatabase, conversationId: string) {
  const row = queries.conversationRow(db, conversationId);
  const sessions = queries.listSessions(db, conversationId);
  return {
    conversation: row ? queries.toConversation(row, queries.objectiveFor(db, conversationId)) : null,
    sessions,
    items: sessions.map((session) => queries.listItems(db, session.id, 0, 500)),
    turns: queries.listTurns(db, conversationId),
    waiting: queries.listWaiting(db, conversationId),
    approvals: queries.listApprovals(db, { conversationId }),
    questions: queries.listQuestions(db, { conversationId }),
  };
}

async function lastMetadataSeq(conversationId: string): Promise<number> {
  const rows = await database.pool.query<{ seq: string }>("SELECT max(seq) AS seq FROM atrium_records WHERE conversation_id = $1 AND stream = 'metadata'", [conversationId]);
  return Number(rows.rows[0]!.seq);
}

describe("index replica", () => {
  it("answers every read of a conversation written on another node as an index rebuilt from the same records' files does", async () => {
    const b = await replicaNode();
    const written = await appendEveryRecordType(writingNode());
    const last = await lastMetadataSeq(written.conversationId);
    await waitUntil(() => (queries.conversationRow(b.index, written.conversationId)?.metadataSeq ?? 0) === last, "node B's index to catch up");
    const fromFiles = await indexFromFiles(written.conversationId);
    const expected = answers(fromFiles, written.conversationId);
    expect(expected.conversation).not.toBeNull();
    expect(expected.items.some((page) => page.items.length > 0)).toBe(true);
    expect(answers(b.index, written.conversationId)).toEqual(expected);
  });

  it("lists on a node started later every conversation written before, and none that was deleted", async () => {
    const a = writingNode();
    const kept = await appendEveryRecordType(a, "kept");
    const gone = await appendEveryRecordType(a, "gone");
    await a.appendMetadata(gone.conversationId, { type: "conversation.deleted", conversationId: gone.conversationId });
    const b = await replicaNode({ follow: false });
    const listed = queries.listConversationRows(b.index, { archived: "all", offset: 0, limit: 500 }).rows.map((row) => row.id);
    expect(listed).toContain(kept.conversationId);
    expect(listed).not.toContain(gone.conversationId);
    expect(answers(b.index, kept.conversationId)).toEqual(answers(await indexFromFiles(kept.conversationId), kept.conversationId));
  });

  it("drops a conversation from its index when another node deletes it, and a later catch-up does not bring it back", async () => {
    const b = await replicaNode();
    const a = writingNode();
    const written = await appendEveryRecordType(a, "to delete");
    await waitUntil(() => queries.conversationRow(b.index, written.conversationId) !== undefined, "the conversation on node B");
    await a.appendMetadata(written.conversationId, { type: "conversation.deleted", conversationId: written.conversationId });
    await waitUntil(() => queries.conversationRow(b.index, written.conversationId) === undefined, "the deletion on node B");
    expect(queries.listSessions(b.index, written.conversationId)).toEqual([]);
    await b.replica.catchUpAll();
    expect(queries.conversationRow(b.index, written.conversationId)).toBeUndefined();
  });
});
