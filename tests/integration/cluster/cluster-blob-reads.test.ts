import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { TEST_TOKEN } from "../../support/server-process";

/**
 * DESIGN §10c: a conversation's attachments and artifacts live in PostgreSQL, so any node serves
 * them from there, with the same access rules, without the node holding the conversation's lease.
 * Killed with -9, a holder whose lease has not run out yet makes none of them unreadable.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3274, { approvals: { shell: "auto" } }), startClusterServer(database.postgres.url, 3275, { approvals: { shell: "auto" } })]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

async function upload(server: ClusterServer, name: string, data: Buffer): Promise<{ id: string }> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(data)], { type: "text/plain" }), name);
  const response = await fetch(`${server.url}/api/attachments`, { method: "POST", body: form, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { attachment: { id: string } }).attachment;
}

async function created(server: ClusterServer, body: object): Promise<{ id: string }> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  const { conversation, turn } = (await response.json()) as { conversation: { id: string }; turn: { id: string } };
  const status = await pollUntil(
    async () => {
      const ended = ((await (await server.api(`/api/turns/${turn.id}`)).json()) as { turn: { status: string } }).turn.status;
      return ended !== "running" && ended;
    },
    { what: "the first turn to end", timeoutMs: 30_000 },
  );
  expect(status).toBe("completed");
  return conversation;
}

const holder = async (conversationId: string) =>
  (await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()", [conversationId])).rows[0]?.node_id ?? null;

describe("attachments and artifacts are read from the database on any node", () => {
  it("a conversation deleted on its holder: another node answers 404 for its files at once, while their bytes are still in the database", async () => {
    const notes = await upload(a, "deleted.txt", Buffer.from("soon gone\n"));
    const conversation = await created(a, { text: "a conversation to delete", attachments: [notes.id] });
    const url = `/api/conversations/${conversation.id}/attachments/${notes.id}`;
    await pollUntil(async () => (await b.api(url)).status === 200, { what: "B to serve the attachment" });
    // The blobs' removal (after the tombstone) is held on a row lock: the bytes are still in the database,
    // so only the conversation's deletion itself can make B answer 404.
    const lock = await database.pool.connect();
    let deleted: Promise<Response> | undefined;
    try {
      await lock.query("BEGIN");
      await lock.query("SELECT 1 FROM atrium_blob_heads WHERE owner = $1 FOR UPDATE", [conversation.id]);
      deleted = a.api(`/api/conversations/${conversation.id}`, { method: "DELETE" });
      await pollUntil(
        async () => ((await database.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM atrium_blob_heads WHERE owner%'")).rowCount ?? 0) > 0,
        { what: "A's removal of the blobs to wait on the lock (the tombstone written)" },
      );
      const gone = await b.api(url);
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("not_found");
      await lock.query("COMMIT");
    } finally {
      await lock.query("ROLLBACK").catch(() => undefined);
      lock.release();
    }
    expect((await deleted!).status).toBe(204);
  }, 60_000);

  it("an attachment id that is not an id (% and _ would match anything) is refused with 400, before any query", async () => {
    const conversation = await created(a, { text: "ids are checked" });
    for (const id of ["%25", "_", "..%2Fconfig.json"]) {
      const answer = await b.api(`/api/conversations/${conversation.id}/attachments/${id}`);
      expect(answer.status, id).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    }
  }, 60_000);

  it("a database error on another node's read of the files answers 503 node_unavailable, never 500", async () => {
    const notes = await upload(a, "unreadable.txt", Buffer.from("in the database\n"));
    const conversation = await created(a, { text: "files on a database that fails", attachments: [notes.id] });
    const url = `/api/conversations/${conversation.id}/attachments/${notes.id}`;
    await pollUntil(async () => (await b.api(url)).status === 200, { what: "B to serve the attachment" });
    // A real PostgreSQL error on the blob read: its table is not there for a moment.
    await database.pool.query("ALTER TABLE atrium_blob_heads RENAME TO atrium_blob_heads_away");
    try {
      const answer = await b.api(url);
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("node_unavailable");
      expect(error.message).toMatch(/database/);
    } finally {
      await database.pool.query("ALTER TABLE atrium_blob_heads_away RENAME TO atrium_blob_heads");
    }
    expect((await b.api(url)).status).toBe(200);
  }, 60_000);

  it("kill -9 of the holder: another node serves the attachment and the artifact at once, with the same bytes, and keeps the access rules", async () => {
    const bytes = Buffer.from("the notes, byte for byte: ünïcødé\n".repeat(2_500));
    const notes = await upload(a, "notes.txt", bytes);
    const conversation = await created(a, { text: '[[tool:shell {"command":"seq 1 40000"}]]', attachments: [notes.id] });
    const other = await created(a, { text: "another conversation" });
    const items = (await (await a.api(`/api/conversations/${conversation.id}/items`)).json()) as { items: Array<{ kind: string; artifactId?: string }> };
    const artifactId = items.items.find((item) => item.kind === "tool_call")!.artifactId!;
    expect(artifactId).toBeTruthy();
    const artifactOnA = await (await a.api(`/api/conversations/${conversation.id}/artifacts/${artifactId}?page=2`)).json();
    // B knows the conversation (its items, read through the holder A, are answered).
    await pollUntil(async () => (await b.api(`/api/conversations/${conversation.id}/items`)).ok, { what: "B to read the conversation" });
    expect(await holder(conversation.id)).toBe(a.nodeId);

    a.child.kill("SIGKILL");
    await a.stop();
    const attachment = await b.api(`/api/conversations/${conversation.id}/attachments/${notes.id}`);
    expect(attachment.status, await attachment.clone().text().then((text) => text.slice(0, 200))).toBe(200);
    expect(attachment.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(Buffer.from(await attachment.arrayBuffer()).equals(bytes)).toBe(true);
    const artifact = await b.api(`/api/conversations/${conversation.id}/artifacts/${artifactId}?page=2`);
    expect(artifact.status).toBe(200);
    expect(await artifact.json()).toEqual(artifactOnA);

    // The same access rules as on the holder: only the conversation that carries it, only pages it has.
    const elsewhere = await b.api(`/api/conversations/${other.id}/attachments/${notes.id}`);
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await b.api(`/api/conversations/${other.id}/artifacts/${artifactId}?page=1`)).status).toBe(404);
    expect((await b.api(`/api/conversations/${conversation.id}/artifacts/${artifactId}?page=99`)).status).toBe(404);
    expect((await b.api(`/api/conversations/01ARZ3NDEKTSV4RRFFQ69G5FAV/attachments/${notes.id}`)).status).toBe(404);
    expect((await fetch(`${b.url}/api/conversations/${conversation.id}/attachments/${notes.id}`)).status).toBe(401);
    // Served without taking the dead holder's conversation: its lease still runs out as it would.
    expect(await holder(conversation.id)).toBe(a.nodeId);
  }, 90_000);
});
