import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as queries from "@/lib/store/queries";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

/**
 * DESIGN §10c: a node's index holds only the conversations whose leases it holds. A write of the
 * owner that is still on its way to PostgreSQL when the node lets the conversation go (its lease
 * lost) commits, but must not read the conversation back into the node's index; and when the node
 * takes the conversation again before that write commits, the record is in its loaded records once.
 * A real Runtime on a real PostgreSQL; the write is held by a lock on atrium_records.
 */
const database = usePostgresPerFile();
let node: Harness;

beforeAll(async () => {
  node = await startHarness({}, undefined, { databaseUrl: database.postgres.url });
}, 60_000);

afterAll(async () => {
  await node?.close();
});

/** Holds every append to atrium_records (reads go on) until the returned function lets them through. */
async function holdWrites(): Promise<() => Promise<void>> {
  const client = await database.pool.connect();
  await client.query("BEGIN");
  await client.query("LOCK TABLE atrium_records IN EXCLUSIVE MODE");
  return async () => {
    await client.query("COMMIT");
    client.release();
  };
}

async function writeHeld(): Promise<void> {
  await waitUntil(async () => (await database.pool.query("SELECT 1 FROM pg_locks WHERE relation = 'atrium_records'::regclass AND NOT granted")).rows.length > 0, "the append waiting on the lock");
}

async function idleConversation(): Promise<string> {
  const made = await node.runtime.createConversation({ text: "let go" });
  await node.waitForEvent(made.conversation.id, "turn.ended");
  return made.conversation.id;
}

describe("an owner's write that commits after the conversation was let go", () => {
  it("does not read the conversation back into the node's index", async () => {
    const id = await idleConversation();
    const placement = node.runtime.cluster!.placement;
    expect(queries.conversationRow(node.runtime.store.index, id)).toBeDefined();
    const release = await holdWrites();
    const writing = node.runtime.store.appendMetadata(id, { type: "conversation.updated", title: "renamed on its way" });
    await writeHeld();
    placement.lost(id);
    await waitUntil(() => queries.conversationRow(node.runtime.store.index, id) === undefined, "the conversation dropped from the index");
    await release();
    const record = await writing;
    expect(record.seq).toBeGreaterThan(1);
    expect(queries.conversationRow(node.runtime.store.index, id), "nothing of a conversation let go is in the index").toBeUndefined();
  });

  it("keeps the record once when the node took the conversation again before the write committed", async () => {
    const id = await idleConversation();
    const records = node.runtime.cluster!.placement.records;
    const release = await holdWrites();
    const writing = node.runtime.store.appendMetadata(id, { type: "conversation.updated", title: "renamed while taken again" });
    await writeHeld();
    records.forget(id);
    await records.load(id);
    await release();
    const record = await writing;
    const seqs = node.runtime.store.readMetadata(id).records.map((entry) => entry.record.seq);
    expect(seqs).toEqual(Array.from({ length: record.seq }, (_, index) => index + 1));
    // Held again: its pages read as written, the new title included.
    expect((await node.runtime.pages.getConversation(id)).title).toBe("renamed while taken again");
  });
});
