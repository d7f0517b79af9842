import { describe, expect, it } from "vitest";
import { createIdGenerator } from "@/lib/store/ids";
import { LeaseKeeper } from "@/lib/store/postgres/lease-keeper";
import { Nodes } from "@/lib/store/postgres/nodes";
import { LeaseHeldError, Leases, type Lease } from "@/lib/store/postgres/leases";
import { LeaseLostError, PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { waitUntil } from "../../support/wait-until";

const newId = createIdGenerator();
const database = usePostgresPerFile();

const progress = (itemId: string, text: string) => ({ type: "item.progress" as const, itemId, text });

describe("lease keeper", () => {
  it("keeps a lease alive past leaseSeconds by renewing it, and hands it back on stop", async () => {
    const keeper = new LeaseKeeper(new Leases(database.pool, newId(), 1));
    const other = new Leases(database.pool, newId(), 1);
    const conversationId = newId();
    const first = await keeper.acquire(conversationId);
    // A renewal ending a second after the first lease's end was made after that end: the lease lived past it.
    await waitUntil(() => keeper.lease(conversationId)!.expiresAt.getTime() > first.expiresAt.getTime() + 1_000, "a renewal past the first expiry", 5_000, 50);
    expect(await other.holder(conversationId)).toMatchObject({ nodeId: keeper.leases.nodeId, epoch: first.epoch });
    await expect(other.take(conversationId)).rejects.toBeInstanceOf(LeaseHeldError);
    await keeper.stop();
    expect(keeper.conversations()).toEqual([]);
    expect(await other.take(conversationId)).toMatchObject({ epoch: first.epoch + 1 });
  });

  it("drops and reports a lease another node took while this one could not renew, and its writes are refused", async () => {
    const lost: Lease[] = [];
    const keeper = new LeaseKeeper(new Leases(database.pool, newId(), 1), { renewEveryMs: 60_000, onLost: (lease) => lost.push(lease) });
    const records = new PostgresRecordStore(database.pool, (conversationId) => keeper.lease(conversationId));
    const other = new Leases(database.pool, newId(), 1);
    const conversationId = newId();
    const held = await keeper.acquire(conversationId);
    // No renewal for a minute: a paused node. The lease expires and the other node takes it.
    await waitUntil(async () => (await other.holder(conversationId)) === null, "the lease to expire", 5_000, 50);
    await other.take(conversationId);
    await expect(records.appendSession(conversationId, conversationId, progress(conversationId, "late"))).rejects.toBeInstanceOf(LeaseLostError);
    await keeper.renewNow();
    expect(lost).toEqual([held]);
    expect(keeper.lease(conversationId)).toBeNull();
    await keeper.stop();
  });
});

describe("node registry", () => {
  it("lists each node with its url, start, last heartbeat and the live leases it holds", async () => {
    const nodes = new Nodes(database.pool);
    const [a, b] = [newId(), newId()];
    await nodes.register(a, "http://127.0.0.1:4001");
    await nodes.register(b, null);
    const keeper = new LeaseKeeper(new Leases(database.pool, a));
    await keeper.acquire(newId());
    await keeper.acquire(newId());
    const before = (await nodes.list()).find((listed) => listed.id === a)!;
    await nodes.seen(a);
    const listed = await nodes.list();
    expect(listed.find((node) => node.id === a)).toMatchObject({ url: "http://127.0.0.1:4001", conversations: 2, startedAt: before.startedAt });
    expect(listed.find((node) => node.id === a)!.lastSeenAt >= before.lastSeenAt).toBe(true);
    expect(listed.find((node) => node.id === b)).toMatchObject({ url: null, conversations: 0 });
    await keeper.stop();
    expect((await nodes.list()).find((node) => node.id === a)!.conversations).toBe(0);
  });
});
