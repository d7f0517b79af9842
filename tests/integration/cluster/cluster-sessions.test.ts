import { afterEach, describe, expect, it } from "vitest";
import { ClusterSessions } from "@/lib/cluster/cluster-sessions";
import { RecordFeed } from "@/lib/store/postgres/record-feed";
import { ensurePostgresSchema } from "@/lib/store/postgres/schema";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";

/** ClusterSessions on a real PostgreSQL: two "nodes" (each its own pool, feed and clock). */
const database = usePostgresPerFile();
const feeds: RecordFeed[] = [];

afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
  await database.pool.query("DELETE FROM atrium_sessions");
});

async function node(now: () => number): Promise<ClusterSessions> {
  await ensurePostgresSchema(database.pool);
  const pool = database.postgres.pool();
  const feed = new RecordFeed({ pool, connectionString: database.postgres.url, reconnectMs: 20 });
  feeds.push(feed);
  await feed.start();
  return ClusterSessions.start({ pool, feed, log: () => undefined, now });
}

async function storedLastSeen(): Promise<string> {
  return (await database.pool.query<{ last_seen_at: string }>("SELECT last_seen_at FROM atrium_sessions")).rows[0]!.last_seen_at;
}

describe("ClusterSessions", () => {
  it("writes lastSeenAt at most once a minute per node, and lists the latest a node has seen", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const a = await node(() => now);
    const id = await a.create("b");
    now += 30_000;
    expect(a.verify(id)).toBe(true);
    // Nothing was written: the table still has the sign-in time, the list this node's latest.
    expect(await storedLastSeen()).toBe("2026-01-01T00:00:00.000Z");
    expect((await a.list(id))[0]!.lastSeenAt).toBe("2026-01-01T00:00:30.000Z");
    now += 31_000;
    expect(a.verify(id)).toBe(true);
    await pollUntil(async () => (await storedLastSeen()) === "2026-01-01T00:01:01.000Z", { what: "the throttled lastSeenAt write" });
    expect(a.verify("not-a-session")).toBe(false);
  });

  it("a session ended on one node is refused by the other as soon as its notice is heard", async () => {
    const a = await node(Date.now);
    const b = await node(Date.now);
    const id = await a.create("b");
    await b.prepare(id);
    expect(b.verify(id)).toBe(true);
    await b.delete(id);
    await pollUntil(() => !a.verify(id), { what: "A hearing the ending", timeoutMs: 2_000 });
    // A lookup does not bring it back.
    await a.prepare(id);
    expect(a.verify(id)).toBe(false);
  });

  it("after its listening connection was lost, a node reads the sessions again (an ending it never heard counts)", async () => {
    const a = await node(Date.now);
    const id = await a.create("b");
    expect(a.verify(id)).toBe(true);
    // An ending whose notice A never hears (as one sent while its connection was down).
    await database.pool.query("DELETE FROM atrium_sessions");
    expect(a.verify(id)).toBe(true);
    await database.pool.query("SELECT pg_terminate_backend($1)", [feeds[0]!.listenerPid!]);
    await pollUntil(() => !a.verify(id), { what: "A reading the sessions again after dialling back", timeoutMs: 5_000 });
  });
});
