import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSse, type SseConnection } from "../../support/sse-client";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { TEST_TOKEN } from "../../support/server-process";

/**
 * DESIGN §10c: "a watcher on any node sees the same events with the same ids, resumable across
 * nodes with Last-Event-ID". A watcher drops mid-turn and comes back on the other node with the
 * last id it saw; what it gets then, added to what it had, is exactly what a watcher that never
 * dropped saw on the holder: no gap, no duplicate, no snapshot in between.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;
const streams: SseConnection[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3513), startClusterServer(database.postgres.url, 3514)]);
}, 90_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

async function watch(server: ClusterServer, id: string, lastEventId?: string): Promise<SseConnection> {
  const stream = await connectSse(`${server.url}/api/conversations/${id}/events`, lastEventId ? { ...auth, "last-event-id": lastEventId } : auth);
  streams.push(stream);
  return stream;
}

/** A conversation A holds, idle after its first turn. */
async function heldByA(): Promise<string> {
  const response = await a.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "resume across nodes" }) });
  expect(response.status).toBe(201);
  const { conversation } = (await response.json()) as { conversation: { id: string } };
  await pollUntil(async () => ((await (await a.api(`/api/conversations/${conversation.id}`)).json()).conversation.status as string) === "idle", { what: "the first turn's end" });
  return conversation.id;
}

const idsAfterSnapshot = (stream: SseConnection) => stream.events.filter((event) => event.event !== "snapshot" && event.id).map((event) => event.id!);

describe("a watcher that reconnects to another node with Last-Event-ID", () => {
  it.each([
    { from: "A, the holder", to: "B", first: () => a, second: () => b },
    { from: "B", to: "A, the holder", first: () => b, second: () => a },
  ])("moving from $from to $to gets every missed event once, with the holder's ids", async ({ first, second }) => {
    const id = await heldByA();
    const reference = await watch(a, id);
    const dropping = await watch(first(), id);
    await Promise.all([reference.waitFor((event) => event.event === "snapshot"), dropping.waitFor((event) => event.event === "snapshot")]);

    const sent = await b.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "slow [[stream:40]] [[delay:40]]" }) });
    expect(sent.status).toBe(202);
    const turnId = ((await sent.json()) as { turn: { id: string } }).turn.id;
    const endOf = (event: { event?: string; data: string }) => event.event === "turn.ended" && JSON.parse(event.data).turn.id === turnId;

    // Drop after some of the turn's deltas, while it still streams.
    await pollUntil(() => dropping.events.filter((event) => event.event === "item.delta").length >= 8, { what: "8 deltas before the drop" });
    dropping.close();
    const before = idsAfterSnapshot(dropping);
    expect(dropping.events.some(endOf)).toBe(false);
    const lastSeen = before.at(-1)!;

    const resumed = await watch(second(), id, lastSeen);
    await resumed.waitFor(endOf, 30_000);
    await reference.waitFor(endOf, 30_000);
    expect(resumed.events.some((event) => event.event === "snapshot")).toBe(false);
    const after = idsAfterSnapshot(resumed);
    const all = [...before, ...after];
    expect(new Set(all).size).toBe(all.length);
    // From the turn's start to its end, exactly the reference watcher's events, in its order.
    const startOf = (event: { event?: string; data: string }) => event.event === "turn.started" && JSON.parse(event.data).turn.id === turnId;
    const turnSpan = (ids: string[], events: SseConnection["events"]) => ids.slice(ids.indexOf(events.find(startOf)!.id!), ids.indexOf(events.find(endOf)!.id!) + 1);
    const expected = turnSpan(idsAfterSnapshot(reference), reference.events);
    expect(expected.length).toBeGreaterThan(40);
    expect(turnSpan(all, [...dropping.events, ...resumed.events])).toEqual(expected);
  });
});
