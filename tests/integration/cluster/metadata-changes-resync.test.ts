import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetadataChanges, type MetadataChange } from "@/lib/store/postgres/metadata-changes";
import { RecordFeed } from "@/lib/store/postgres/record-feed";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

/**
 * DESIGN §10c, "sidebars on every node see list changes", across a lost listening connection: a
 * node's list events of other nodes' conversations come from the feed's notices, and a notice
 * committed while the connection is down never arrives. When the feed has dialled again, the
 * changes written meanwhile are read from atrium_records and told, and what was told before the
 * loss is not told again. A real writing node (a Runtime) and a real feed on one PostgreSQL.
 */
const database = usePostgresPerFile();
let writer: Harness;

beforeAll(async () => {
  writer = await startHarness({}, undefined, { databaseUrl: database.postgres.url });
}, 60_000);

afterAll(async () => {
  await writer?.close();
});

describe("list events across a lost listening connection", () => {
  it("tells the changes committed while the feed was down once it is back, and nothing told before again", async () => {
    // Slow to dial again, so the writes below land while no connection listens.
    const feed = new RecordFeed({ pool: database.pool, connectionString: database.postgres.url, reconnectMs: 1_500 });
    await feed.start();
    const told: MetadataChange[] = [];
    const changes = new MetadataChanges(database.pool, () => false, (change) => void told.push(change), () => true);
    const stop = changes.follow(feed);
    const of = (conversationId: string) => told.filter((change) => change.conversationId === conversationId).flatMap((change) => change.types);
    try {
      const before = (await writer.runtime.createConversation({ text: "before the loss" })).conversation.id;
      await writer.waitForEvent(before, "turn.ended");
      await waitUntil(() => of(before).includes("turn.ended"), "the change before the loss told from its notice");
      const toldBefore = of(before);

      const pid = feed.listenerPid;
      expect(pid).not.toBeNull();
      await database.pool.query("SELECT pg_terminate_backend($1)", [pid]);
      await waitUntil(() => feed.listenerPid === null, "the feed to see its connection gone");
      const during = (await writer.runtime.createConversation({ text: "while the feed is down" })).conversation.id;
      await writer.waitForEvent(during, "turn.ended");
      expect(feed.listenerPid, "the writes landed while nothing listened").toBeNull();

      await waitUntil(() => of(during).includes("turn.ended"), "the changes missed while down told once the feed is back", 15_000);
      const types = of(during);
      expect(types[0]).toBe("conversation.created");
      expect(types.filter((type) => type === "conversation.created")).toHaveLength(1);
      expect(types.filter((type) => type === "turn.ended")).toHaveLength(1);
      // The conversation told before the loss sits inside the look-back window: its cursor keeps it from being told twice.
      expect(of(before)).toEqual(toldBefore);
    } finally {
      stop();
      await feed.stop();
    }
  });
});

describe("list events of one conversation", () => {
  it("are told one after another, in the order of its records, each waiting for the one before to be published", async () => {
    const feed = new RecordFeed({ pool: database.pool, connectionString: database.postgres.url });
    await feed.start();
    const told: string[] = [];
    let publishing = 0;
    let overlapped = false;
    // A publication takes a database round trip or two (ClusterOwners.changed reads the conversation and its approvals).
    const publish = async (change: MetadataChange) => {
      publishing += 1;
      if (publishing > 1) overlapped = true;
      await database.pool.query("SELECT pg_sleep(0.03)");
      told.push(...change.types);
      publishing -= 1;
    };
    const stop = new MetadataChanges(database.pool, () => false, publish, () => true).follow(feed);
    try {
      const made = await writer.runtime.createConversation({ text: "first" });
      const id = made.conversation.id;
      await writer.waitForEvent(id, "turn.ended");
      await writer.runtime.sendMessage(id, { text: "second", mode: "auto" });
      await writer.waitForEvent(id, "turn.ended", (event) => event.turn.id !== made.turn!.id);
      const written = writer.runtime.store.readMetadata(id).records.map((entry) => entry.record.type);
      await waitUntil(() => told.length === written.length, "every metadata record of the conversation told");
      expect(told).toEqual(written);
      expect(overlapped, "a change published while the one before it was still being published").toBe(false);
    } finally {
      stop();
      await feed.stop();
    }
  });
});
