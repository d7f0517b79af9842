import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createIdGenerator } from "@/lib/store/ids";
import { Leases, type Lease } from "@/lib/store/postgres/leases";
import { PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { RecordFeed, type FedRecord, type RecordNotice } from "@/lib/store/postgres/record-feed";
import { RECORD_CHANNEL } from "@/lib/store/postgres/schema";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { waitUntil } from "../../support/wait-until";
import { conversationCreated } from "../../support/conversation-records";

const newId = createIdGenerator();
const database = usePostgresPerFile();
const feeds: RecordFeed[] = [];

afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

/** A node's feed: its own pool for reads and its own listening connection, as on another node. */
async function startFeed(): Promise<RecordFeed> {
  const feed = new RecordFeed({ pool: database.postgres.pool(), connectionString: database.postgres.url, reconnectMs: 20 });
  feeds.push(feed);
  await feed.start();
  return feed;
}

/** The writing node: a lease on the conversation and a record store writing with it. */
async function writer(conversationId: string) {
  const held = new Map<string, Lease>();
  const leases = new Leases(database.pool, newId(), 30);
  held.set(conversationId, await leases.take(conversationId));
  return { lease: held.get(conversationId)!, records: new PostgresRecordStore(database.pool, (id) => held.get(id) ?? null) };
}

const progress = (itemId: string, text: string) => ({ type: "item.progress" as const, itemId, text });

/** Writes `texts` from another OS process (tests/support/stale-owner-process.ts, here a live owner). */
async function writeFromProcess(conversationId: string, sessionId: string, lease: Lease, texts: string[]): Promise<number[]> {
  const script = path.resolve(import.meta.dirname, "../../support/stale-owner-process.ts");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, database.postgres.url, conversationId, sessionId, lease.nodeId, String(lease.epoch)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as { ok?: boolean; seq?: number; code?: string };
  await next();
  const seqs: number[] = [];
  for (const text of texts) {
    child.stdin.write(`append ${text}\n`);
    const answer = await next();
    if (!answer.ok) throw new Error(`the writing process was refused: ${answer.code}`);
    seqs.push(answer.seq!);
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin.write("exit\n");
  await exited;
  return seqs;
}

describe("record feed", () => {
  it("delivers every record another process writes, once each, in seq order, with the writer's seqs", async () => {
    const conversationId = newId();
    const sessionId = newId();
    const owner = await writer(conversationId);
    const feed = await startFeed();
    const fed: FedRecord[] = [];
    await feed.follow(conversationId, {}, (record) => fed.push(record));
    const texts = Array.from({ length: 40 }, (_, index) => `step ${index}`);
    const seqs = await writeFromProcess(conversationId, sessionId, owner.lease, texts);
    await waitUntil(() => fed.length >= texts.length, "every record to reach the follower");
    expect(fed.map((record) => record.seq)).toEqual(seqs);
    expect(fed.map((record) => record.record.text)).toEqual(texts);
    expect(fed.every((record) => record.stream === sessionId && record.conversationId === conversationId)).toBe(true);
    expect(Object.keys(fed[0]!.record).slice(0, 4)).toEqual(["v", "seq", "at", "type"]);
  });

  it("sends a notice of a few dozen bytes for a 100 kB record, and the follower gets the whole record", async () => {
    const conversationId = newId();
    const sessionId = newId();
    const owner = await writer(conversationId);
    const listener = new pg.Client({ connectionString: database.postgres.url });
    await listener.connect();
    const payloads: string[] = [];
    listener.on("notification", (message) => payloads.push(message.payload ?? ""));
    await listener.query(`LISTEN ${RECORD_CHANNEL}`);
    try {
      const feed = await startFeed();
      const fed: FedRecord[] = [];
      await feed.follow(conversationId, {}, (record) => fed.push(record));
      const text = "x".repeat(100 * 1024);
      await owner.records.appendSession(conversationId, sessionId, progress(sessionId, text));
      await waitUntil(() => fed.length === 1 && payloads.some((payload) => payload.includes(conversationId)), "the record and its notice");
      expect(fed[0]!.record.text).toBe(text);
      const notice = payloads.find((payload) => payload.includes(conversationId))!;
      expect(JSON.parse(notice)).toEqual({ c: conversationId, s: sessionId, q: 1 });
      expect(Buffer.byteLength(notice)).toBeLessThan(200);
    } finally {
      await listener.end();
    }
  });

  it("starts after the cursors it is given, or at the records' end with 'now'", async () => {
    const conversationId = newId();
    const sessionId = newId();
    const owner = await writer(conversationId);
    for (const text of ["a", "b", "c"]) await owner.records.appendSession(conversationId, sessionId, progress(sessionId, text));
    await owner.records.appendMetadata(conversationId, { type: "conversation.updated", title: "renamed" });
    const feed = await startFeed();
    const afterTwo: FedRecord[] = [];
    const fromNow: FedRecord[] = [];
    await feed.follow(conversationId, { [sessionId]: 2, metadata: 1 }, (record) => afterTwo.push(record));
    await feed.follow(conversationId, "now", (record) => fromNow.push(record));
    expect(afterTwo.map((record) => [record.stream, record.seq])).toEqual([[sessionId, 3]]);
    expect(fromNow).toEqual([]);
    await owner.records.appendSession(conversationId, sessionId, progress(sessionId, "d"));
    await waitUntil(() => afterTwo.length === 2 && fromNow.length === 1, "the new record to reach both followers");
    expect(fromNow.map((record) => [record.seq, record.record.text])).toEqual([[4, "d"]]);
  });

  it("loses nothing and repeats nothing when its listening connection is cut while records are written", async () => {
    const conversationId = newId();
    const sessionId = newId();
    const owner = await writer(conversationId);
    const feed = await startFeed();
    const fed: FedRecord[] = [];
    await feed.follow(conversationId, {}, (record) => fed.push(record));
    let resyncs = 0;
    feed.onResync(() => (resyncs += 1));
    const writing = (async () => {
      for (let index = 0; index < 200; index += 1) await owner.records.appendSession(conversationId, sessionId, progress(sessionId, String(index)));
    })();
    await waitUntil(() => fed.length >= 20, "the first records to arrive");
    const pid = feed.listenerPid;
    expect(pid).not.toBeNull();
    await database.pool.query("SELECT pg_terminate_backend($1)", [pid]);
    await writing;
    await waitUntil(() => fed.length >= 200, "every record after the feed dialled again");
    expect(resyncs).toBeGreaterThanOrEqual(1);
    expect(feed.listenerPid).not.toBe(pid);
    expect(fed.map((record) => record.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
  });

  it("tells every node of a record of a conversation it does not follow (a new conversation for the sidebar)", async () => {
    const feed = await startFeed();
    const notices: RecordNotice[] = [];
    feed.onNotice((notice) => notices.push(notice));
    const conversationId = newId();
    const owner = await writer(conversationId);
    await owner.records.appendMetadata(conversationId, conversationCreated(conversationId, newId(), "new"));
    await waitUntil(() => notices.some((notice) => notice.conversationId === conversationId), "the notice of the new conversation");
    expect(notices.find((notice) => notice.conversationId === conversationId)).toEqual({ conversationId, stream: "metadata", seq: 1 });
  });

  it("stops delivering to a follower that stopped following", async () => {
    const conversationId = newId();
    const sessionId = newId();
    const owner = await writer(conversationId);
    const feed = await startFeed();
    const fed: FedRecord[] = [];
    const kept: FedRecord[] = [];
    const unfollow = await feed.follow(conversationId, {}, (record) => fed.push(record));
    await feed.follow(conversationId, {}, (record) => kept.push(record));
    await owner.records.appendSession(conversationId, sessionId, progress(sessionId, "one"));
    await waitUntil(() => fed.length === 1 && kept.length === 1, "the first record");
    unfollow();
    await owner.records.appendSession(conversationId, sessionId, progress(sessionId, "two"));
    await waitUntil(() => kept.length === 2, "the second record to reach the follower still following");
    expect(fed).toHaveLength(1);
  });

  it("listens to channels asked for at once one after another on its connection, and hears each", async () => {
    const feed = await startFeed();
    const client = (feed as unknown as { client: pg.Client }).client;
    const query = client.query.bind(client) as (text: string) => Promise<unknown>;
    let running = 0;
    let most = 0;
    (client as unknown as { query: (text: string) => Promise<unknown> }).query = async (text: string) => {
      running += 1;
      most = Math.max(most, running);
      try {
        return await query(text);
      } finally {
        running -= 1;
      }
    };
    const heard: string[] = [];
    await Promise.all(["atrium_test_one", "atrium_test_two", "atrium_test_three"].map((channel) => feed.onChannel(channel, (payload) => heard.push(`${channel}:${payload}`))));
    expect(most, "LISTEN queries overlapping on the one connection").toBe(1);
    for (const channel of ["atrium_test_one", "atrium_test_two", "atrium_test_three"]) await database.pool.query(`NOTIFY ${channel}, 'hello'`);
    await waitUntil(() => heard.length === 3, "a notice on each channel");
    expect(heard.sort()).toEqual(["atrium_test_one:hello", "atrium_test_three:hello", "atrium_test_two:hello"]);
  });
});
