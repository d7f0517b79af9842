import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/store/canonical-json";
import { BlobStore } from "@/lib/store/postgres/blob-store";
import { Leases } from "@/lib/store/postgres/leases";
import { lineOrder } from "@/lib/store/postgres/postgres-record-store";
import { Store } from "@/lib/store/store";
import { parseDatabaseJson } from "@/lib/store/postgres/database-json";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "../cli/run-atrium";
import { spawnLockHolder } from "../store/lock-holder";
import { appendExchange, createConversation, type BuiltConversation } from "../store/conversation-fixtures";
import { conversationCreated } from "../../support/conversation-records";
import { openIndex } from "@/lib/store/database";
import { IndexWriter } from "@/lib/store/index-writer";
import { IndexReplica } from "@/lib/store/postgres/index-replica";
import { RecordFeed } from "@/lib/store/postgres/record-feed";
import { conversationRow, listItems } from "@/lib/store/queries";
import { RecordProofs } from "@/lib/store/record-proofs";
import { waitUntil } from "../../support/wait-until";
import { clusterRecordKey } from "@/lib/store/postgres/cluster-settings";
import { databasePool } from "@/lib/store/postgres/database-json";
import { postgresIndexDump, sqliteIndexDump } from "../../support/index-tables-dump";
import { SessionStore } from "@/lib/auth/session-store";
import { SESSION_COOKIE } from "@/lib/auth/token";
import { MachineRecords, tokenHash, type StoredMachine } from "@/lib/machines/machine-records";
import { freePort } from "../../support/mcp-servers";
import { startClusterServer } from "../../support/cluster-server";

const cluster = usePostgresPerFile();

/** Every line of every JSONL file of a conversation directory, by stream ("metadata" or a session id). */
function fileStreams(home: string, conversationId: string): Map<string, string[]> {
  const directory = path.join(home, "conversations", conversationId);
  const streams = new Map<string, string[]>();
  for (const name of fs.readdirSync(directory).filter((file) => file.endsWith(".jsonl"))) {
    const lines = fs.readFileSync(path.join(directory, name), "utf8").split("\n");
    lines.pop();
    streams.set(name === "metadata.jsonl" ? "metadata" : name.slice(0, -".jsonl".length), lines.map((line) => canonicalJson(JSON.parse(line))));
  }
  return streams;
}

/** The same, read from the cluster's atrium_records. */
async function clusterStreams(conversationId: string): Promise<Map<string, string[]>> {
  const rows = await cluster.pool.query<{ stream: string; record: string }>(
    "SELECT stream, record::text AS record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream, seq",
    [conversationId],
  );
  const streams = new Map<string, string[]>();
  for (const row of rows.rows) {
    const record = parseDatabaseJson(row.record) as Record<string, unknown>;
    streams.set(row.stream, [...(streams.get(row.stream) ?? []), canonicalJson(lineOrder(record))]);
  }
  return streams;
}

/** A user message carrying an attachment, with its file in the conversation directory, and an artifact file. */
async function addFiles(store: Store, conversation: BuiltConversation): Promise<{ attachment: Buffer; artifact: Buffer; attachmentPath: string; artifactPath: string }> {
  const attachmentId = store.newId();
  const artifactId = store.newId();
  const attachment = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
  const artifact = Buffer.from("line of output\n".repeat(2000));
  const directory = store.paths.conversation(conversation.conversationId);
  fs.mkdirSync(path.join(directory, "attachments"), { recursive: true });
  fs.mkdirSync(path.join(directory, "artifacts"), { recursive: true });
  fs.writeFileSync(path.join(directory, "attachments", `${attachmentId}-dot.png`), attachment);
  fs.writeFileSync(path.join(directory, "artifacts", artifactId), artifact);
  await store.appendSession(conversation.conversationId, conversation.rootSessionId, {
    type: "item.created",
    item: {
      id: store.newId(),
      sessionId: conversation.rootSessionId,
      turnId: null,
      kind: "user_message",
      status: "completed",
      text: "with a picture",
      attachments: [{ id: attachmentId, name: "dot.png", mediaType: "image/png", bytes: attachment.length }],
      createdAt: store.now().toISOString(),
    },
  });
  return { attachment, artifact, attachmentPath: `attachments/${attachmentId}-dot.png`, artifactPath: `artifacts/${artifactId}` };
}

describe("atrium migrate --to", () => {
  let home: string;
  let cleanup: () => void;
  let store: Store;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome("atrium-migrate-"));
    store = new Store(home, { log: () => undefined });
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  const migrate = (env: Record<string, string> = {}) => runAtrium(["migrate", "--to", cluster.postgres.url], { home, env });

  it("copies every conversation record for record and its files; run again it copies only what was added since", async () => {
    const first = await createConversation(store, { title: "First", texts: ["one", "two"] });
    const second = await createConversation(store, { title: "Second", texts: ["three"] });
    const files = await addFiles(store, first);
    const gone = await createConversation(store, { title: "Gone" });
    await store.appendMetadata(gone.conversationId, { type: "conversation.deleted", conversationId: gone.conversationId });

    const run = await migrate();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`Copied ${first.conversationId} "First": \\d+ records, 2 files`));
    expect(run.stdout).toContain(`Copied ${second.conversationId} "Second"`);
    expect(run.stdout).toContain(`Skipped ${gone.conversationId}: it was deleted`);
    for (const { conversationId } of [first, second]) expect(await clusterStreams(conversationId)).toEqual(fileStreams(home, conversationId));
    expect((await clusterStreams(gone.conversationId)).size).toBe(0);
    const blobs = new BlobStore(cluster.pool);
    expect(await blobs.read(first.conversationId, files.attachmentPath)).toEqual(files.attachment);
    expect((await blobs.head(first.conversationId, files.attachmentPath))?.mediaType).toBe("image/png");
    expect(await blobs.read(first.conversationId, files.artifactPath)).toEqual(files.artifact);

    const again = await migrate();
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`Already in the cluster: ${first.conversationId}`);
    expect(again.stdout).toContain(`Already in the cluster: ${second.conversationId}`);
    expect(again.stdout).toContain("copied 0 conversations (0 records");

    // The files go on (and a crash left a torn last line): only the new whole records are copied.
    await appendExchange(store, second, "four");
    fs.appendFileSync(store.paths.session(second.conversationId, second.rootSessionId), '{"v":1,"seq":99,"at":"2026-');
    const resumed = await migrate();
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`Copied ${second.conversationId} "Second": 6 records, 0 files`));
    // (fileStreams reads whole lines only, as every reader of the files does.)
    expect(await clusterStreams(second.conversationId)).toEqual(fileStreams(home, second.conversationId));
  });

  it("a node following the cluster lists the migrated conversations with their items as they land", async () => {
    const index = openIndex(":memory:");
    const replica = new IndexReplica(cluster.postgres.pool(), index.$client, new IndexWriter(index.$client, new RecordProofs(home)));
    const feed = new RecordFeed({ pool: cluster.postgres.pool(), connectionString: cluster.postgres.url });
    try {
      await feed.start();
      replica.follow(feed);
      await replica.catchUpAll();
      const moved = await createConversation(store, { title: "Moved in", texts: ["one", "two", "three"] });
      expect((await migrate()).status).toBe(0);
      await waitUntil(() => conversationRow(index, moved.conversationId)?.title === "Moved in", "the node to index the migrated conversation");
      const items = listItems(index, moved.rootSessionId, 0, 100).items;
      expect(items.map((item) => item.text)).toEqual(["one", "You said: one", "two", "You said: two", "three", "You said: three"]);
    } finally {
      await feed.stop();
      index.$client.close();
    }
  });

  it("writes each copied conversation's index rows with its records: the rows a node's index derives from them, again after a resumed copy", async () => {
    const kept = await createConversation(store, { title: "Indexed \u0000 on the way", texts: ["one", "two"] });
    const growing = await createConversation(store, { title: "Growing", texts: ["three"] });
    expect((await migrate()).status).toBe(0);
    // The conversation goes on in the files: the copy resumes, and its rows are derived again.
    await appendExchange(store, growing, "four");
    expect((await migrate()).status).toBe(0);
    const ids = [kept.conversationId, growing.conversationId];
    // A node's index of the cluster (the cluster's record key, as every node has it).
    const index = openIndex(":memory:");
    try {
      const nodePool = databasePool(cluster.postgres.url, 4, () => undefined);
      const replica = new IndexReplica(nodePool, index.$client, new IndexWriter(index.$client, new RecordProofs(home, await clusterRecordKey(cluster.pool))));
      await replica.catchUpAll().finally(() => nodePool.end());
      const expected = await sqliteIndexDump(index, ids);
      expect(expected.items!.length).toBeGreaterThanOrEqual(8);
      expect(await postgresIndexDump(cluster.pool, ids)).toEqual(expected);
      // Their search rows too: one per message with text, one per title.
      const searchRows = await cluster.pool.query<{ items: string; titles: string }>(
        `SELECT (SELECT count(*) FROM atrium_index_item_search WHERE conversation_id = ANY($1)) AS items,
                (SELECT count(*) FROM atrium_index_title_search WHERE conversation_id = ANY($1)) AS titles`,
        [ids],
      );
      expect(searchRows.rows[0]).toEqual({ items: "8", titles: "2" });
    } finally {
      index.$client.close();
    }
  });

  it("refuses a conversation that differs from the cluster's or that a node holds, copies the rest, and exits 3", async () => {
    const clashing = await createConversation(store, { title: "Mine" });
    const held = await createConversation(store, { title: "Busy" });
    const fine = await createConversation(store, { title: "Fine" });
    const garbled = await createConversation(store, { title: "Garbled" });
    const metadataFile = store.paths.metadata(garbled.conversationId);
    const lines = fs.readFileSync(metadataFile, "utf8").split("\n");
    lines.splice(1, 0, "not a record");
    fs.writeFileSync(metadataFile, lines.join("\n"));
    // The cluster already has another conversation under the first id, and a node holds the second.
    const leases = new Leases(cluster.pool, "node-elsewhere", 60);
    const lease = await leases.take(clashing.conversationId);
    const theirs = conversationCreated(clashing.conversationId, store.newId(), "Theirs");
    await cluster.pool.query("SELECT atrium_append_records($1, $2, $3, $4::jsonb)", [
      clashing.conversationId,
      lease.nodeId,
      lease.epoch,
      JSON.stringify([{ stream: "metadata", at: new Date().toISOString(), body: theirs }]),
    ]);
    await leases.take(held.conversationId);

    const run = await migrate();
    expect(run.status).toBe(3);
    expect(run.stdout).toContain(`Refused ${clashing.conversationId} "Mine": record 1 of its metadata differs from the cluster's`);
    expect(run.stdout).toContain(`Refused ${held.conversationId} "Busy": it is in use on node node-elsewhere`);
    expect(run.stdout).toContain(`Copied ${fine.conversationId} "Fine"`);
    expect(run.stdout).toContain(`Refused ${garbled.conversationId}: line 2 of metadata.jsonl is not valid JSON`);
    expect(run.stdout).toContain("3 refused");
    expect((await clusterStreams(clashing.conversationId)).get("metadata")).toHaveLength(1);
    expect((await clusterStreams(held.conversationId)).size).toBe(0);
    expect(await clusterStreams(fine.conversationId)).toEqual(fileStreams(home, fine.conversationId));
  });

  it("a conversation the database refuses goes in not at all, the others still go (NUL and lone surrogates included), and the run exits 1", async () => {
    const broken = await createConversation(store, { title: "Broken", texts: ["fine", "the database refuses this one"] });
    const fine = await createConversation(store, { title: "Fine", texts: ["a NUL \u0000 here, a lone \ud800 there, \uffff0 too"] });
    await cluster.pool.query(`
      CREATE FUNCTION atrium_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.record::text LIKE '%the database refuses this one%' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER atrium_test_refuse BEFORE INSERT ON atrium_records FOR EACH ROW EXECUTE FUNCTION atrium_test_refuse();`);
    try {
      const run = await migrate();
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(`Failed ${broken.conversationId} "Broken"`);
      expect(run.stdout).toContain(`Copied ${fine.conversationId}`);
    } finally {
      await cluster.pool.query("DROP TRIGGER IF EXISTS atrium_test_refuse ON atrium_records; DROP FUNCTION IF EXISTS atrium_test_refuse()");
    }
    // One transaction per conversation: none of its records, not the ones before the bad one.
    expect((await clusterStreams(broken.conversationId)).size).toBe(0);
    expect(await clusterStreams(fine.conversationId)).toEqual(fileStreams(home, fine.conversationId));
  });

  it("exits 2 without a postgres URL, 3 while a server holds the data directory, 1 when the database is unreachable (password not shown)", async () => {
    await createConversation(store);
    const missing = await runAtrium(["migrate"], { home });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("missing --to");
    const wrong = await runAtrium(["migrate", "--to", "mysql://u:p@h/db"], { home });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("must be a postgres:// URL");

    const holder = await spawnLockHolder(store.paths.lock);
    try {
      const locked = await migrate();
      expect(locked.status).toBe(3);
      expect(locked.stderr).toContain(String(holder.pid));
    } finally {
      await holder.kill();
    }

    const unreachable = await runAtrium(["migrate", "--to", "postgres://atrium:s3cret-pass@127.0.0.1:1/atrium"], { home });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toContain("could not use the database at postgres://atrium:***@127.0.0.1:1/atrium");
    expect(unreachable.stdout + unreachable.stderr).not.toContain("s3cret-pass");
  });

  it("copies the linked machines and browser sessions too: the machines keep their tokens, nobody is signed out, and a clash is refused", async () => {
    const machine = (name: string, token: string): StoredMachine => ({
      id: store.newId(),
      name,
      tokenHash: tokenHash(token),
      allowedRoots: ["/srv/work"],
      createdAt: store.now().toISOString(),
      hostname: `${name}.lan`,
      platform: "linux",
      roots: ["/srv/work"],
      sandbox: "bwrap",
      lastSeenAt: null,
    });
    const machines = new MachineRecords(store.paths.machines);
    const laptop = machine("migrated-laptop", "atrium_machine_laptop-token");
    machines.put(laptop);
    machines.put(machine("migrated-build-vm", "atrium_machine_vm-token"));
    const signedIn = new SessionStore(store.paths.sessions).create("Firefox 140");
    // The cluster already has a machine of that name (added on a node before the move).
    const theirs = machine("migrated-build-vm", "atrium_machine_other-token");
    await cluster.pool.query("INSERT INTO atrium_machines (id, record) VALUES ($1, $2)", [theirs.id, JSON.stringify(theirs)]);

    const run = await migrate();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(3);
    expect(run.stdout).toContain('Refused machine "migrated-build-vm": the cluster has another machine named "migrated-build-vm"');
    expect(run.stdout).toContain("Machines: copied 1: migrated-laptop; 0 already there; 1 refused.");
    expect(run.stdout).toContain("Browser sessions: copied 1; 0 already there.");
    const rows = await cluster.pool.query<{ record: StoredMachine }>("SELECT record FROM atrium_machines WHERE record->>'name' LIKE 'migrated-%' ORDER BY record->>'name'");
    expect(rows.rows.map((row) => row.record)).toEqual([theirs, laptop].sort((a, b) => a.name.localeCompare(b.name)));

    const again = await migrate();
    expect(again.stdout).toContain("Machines: copied 0; 1 already there; 1 refused.");
    expect(again.stdout).toContain("Browser sessions: copied 0; 1 already there.");

    // A node of the cluster knows both: the browser's cookie signs in, the machine is listed with its roots.
    const node = await startClusterServer(cluster.postgres.url, await freePort());
    try {
      const withCookie = await fetch(`${node.url}/api/conversations`, { headers: { cookie: `${SESSION_COOKIE}=${signedIn}` } });
      expect(withCookie.status).toBe(200);
      const listed = (await (await node.api("/api/machines")).json()) as { machines: Array<{ name: string; roots: string[] }> };
      expect(listed.machines.find((entry) => entry.name === "migrated-laptop")?.roots).toEqual(["/srv/work"]);
    } finally {
      await node.cleanup();
    }
  }, 60_000);
});
