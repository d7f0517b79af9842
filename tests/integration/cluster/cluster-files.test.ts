import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { TEST_TOKEN } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "../cli/run-atrium";

/**
 * DESIGN §10c: a conversation's files live in PostgreSQL, not on a node's disk. Three real server
 * processes on one real PostgreSQL: an upload on B is claimed by a message the owner on A records,
 * served from every node and sent to the model; an artifact a tool call wrote on A is read after
 * A is killed (-9) and another node took the conversation; a fork copies it; export has them all;
 * no node's ATRIUM_HOME holds anything of a conversation.
 */
const LEASE_SECONDS = 4;
const PORTS = [3121, 3122, 3123] as const;
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const database = usePostgresPerFile();
let fake: FakeOpenAIServer;
let a: ClusterServer;
let b: ClusterServer;
let c: ClusterServer;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  const config = {
    cluster: { leaseSeconds: LEASE_SECONDS },
    approvals: { shell: "auto" },
    models: [{ id: "vision", provider: "openai-compatible", baseURL: fake.url, model: "fake-model", attachments: ["image"] }],
  };
  [a, b, c] = await Promise.all(PORTS.map((port) => startClusterServer(database.postgres.url, port, config)));
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup(), c?.cleanup()]);
  await fake?.close();
});

async function upload(server: ClusterServer, name: string, type: string, data: Buffer): Promise<{ id: string; name: string; mediaType: string; bytes: number }> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(data)], { type }), name);
  const response = await fetch(`${server.url}/api/attachments`, { method: "POST", body: form, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { attachment: { id: string; name: string; mediaType: string; bytes: number } }).attachment;
}

async function turnEnded(server: ClusterServer, turnId: string): Promise<string> {
  return pollUntil(
    async () => {
      const response = await server.api(`/api/turns/${turnId}`).catch(() => null);
      if (response?.status !== 200) return false;
      const status = ((await response.json()) as { turn: { status: string } }).turn.status;
      return status !== "running" && status;
    },
    { timeoutMs: 30_000, what: `turn ${turnId} to end` },
  );
}

async function create(server: ClusterServer, body: object): Promise<{ id: string; turnId: string }> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { conversation: { id: string }; turn: { id: string } };
  expect(await turnEnded(server, created.turn.id)).toBe("completed");
  return { id: created.conversation.id, turnId: created.turn.id };
}

/** Nothing of any conversation on a node's disk: no conversation directory, no upload. */
function expectNothingOnDisk(server: ClusterServer): void {
  expect(fs.readdirSync(path.join(server.home, "conversations"))).toEqual([]);
  expect(fs.existsSync(path.join(server.home, "uploads"))).toBe(false);
}

const blobPaths = async (owner: string) =>
  (await database.pool.query<{ path: string }>("SELECT path FROM atrium_blob_heads WHERE owner = $1 ORDER BY path", [owner])).rows.map((row) => row.path);

describe("a conversation's files on a cluster", () => {
  it("an upload on B, named by a message the owner on A records, is served from every node and sent to the model; a second claim is refused", async () => {
    const { id } = await create(a, { text: "hello", model: "vision" });
    const image = await upload(b, "dot.png", "image/png", PNG);
    const notes = await upload(c, "notes.txt", "text/plain", Buffer.from("remember the milk\n"));
    expect(await blobPaths("uploads")).toEqual(expect.arrayContaining([`${image.id}-dot.png`, `${notes.id}-notes.txt`]));

    const before = fake.requests.length;
    const sent = await a.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "look", attachments: [image.id, notes.id] }) });
    expect(sent.status).toBe(202);
    const { turn } = (await sent.json()) as { turn: { id: string } };
    expect(await turnEnded(a, turn.id)).toBe("completed");
    const input = fake.requests.slice(before).at(-1)!.body.messages.findLast((message: { role: string }) => message.role === "user").content;
    expect(input.find((part: { type: string }) => part.type === "image_url").image_url.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(JSON.stringify(input)).toContain("remember the milk");

    // Claimed: moved under the conversation, no longer an upload.
    expect(await blobPaths(id)).toEqual([`attachments/${image.id}-dot.png`, `attachments/${notes.id}-notes.txt`]);
    expect(await blobPaths("uploads")).not.toContain(`${image.id}-dot.png`);
    for (const server of [a, b, c]) {
      const response = await server.api(`/api/conversations/${id}/attachments/${image.id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await response.arrayBuffer())).toEqual(PNG);
    }

    // One upload named by two messages at once (through two nodes): exactly one claims it.
    const once = await upload(c, "once.txt", "text/plain", Buffer.from("only once\n"));
    const both = await Promise.all(
      [b, c].map((server) => server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "mine", mode: "queue", attachments: [once.id] }) })),
    );
    expect(both.map((response) => response.status).sort()).toEqual([202, 404]);
    expect(((await both.find((response) => response.status === 404)!.json()) as { error: { code: string } }).error.code).toBe("not_found");
    for (const server of [a, b, c]) expectNothingOnDisk(server);

    // Export from the cluster carries the attachments.
    const out = makeTempHome("atrium-files-export-");
    try {
      const bundle = path.join(out.home, "bundle.tar.gz");
      const run = await runAtrium(["export", id, "-o", bundle], { home: out.home, env: { ATRIUM_DATABASE_URL: database.postgres.url } });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const files: string[] = [];
      await tar.t({ file: bundle, onReadEntry: (entry) => files.push(entry.path) });
      expect(files).toEqual(expect.arrayContaining([`${id}/attachments/${image.id}-dot.png`, `${id}/attachments/${notes.id}-notes.txt`]));
    } finally {
      out.cleanup();
    }

    // Deleted (through C): its blobs go with it.
    await pollUntil(async () => (await c.api(`/api/conversations/${id}`, { method: "DELETE" })).status === 204, { timeoutMs: 30_000, what: "the delete" });
    expect(await blobPaths(id)).toEqual([]);
  });

  it("an artifact written by a tool call on A is read after A is killed and another node took over, copied by a fork, and exported", async () => {
    const { id } = await create(a, { text: '[[tool:shell {"command":"seq 1 40000"}]]' });
    const items = (await (await a.api(`/api/conversations/${id}/items`)).json()) as { items: Array<{ kind: string; artifactId?: string }> };
    const artifactId = items.items.find((item) => item.kind === "tool_call")!.artifactId!;
    expect(artifactId).toBeTruthy();
    expect(await blobPaths(id)).toEqual([`artifacts/${artifactId}`]);
    expectNothingOnDisk(a);

    a.child.kill("SIGKILL");
    await pollUntil(
      async () => (await database.pool.query("SELECT expires_at <= clock_timestamp() AS expired FROM atrium_leases WHERE conversation_id = $1", [id])).rows[0].expired,
      { timeoutMs: 20_000, what: "A's lease to run out" },
    );
    // The artifact route on B (which takes the conversation over), then the read_artifact tool through C.
    const page = await b.api(`/api/conversations/${id}/artifacts/${artifactId}?page=1`);
    expect(page.status).toBe(200);
    const read = (await page.json()) as { artifact: { bytes: number; pages: number }; text: string };
    const expected = `${Array.from({ length: 40000 }, (_, index) => index + 1).join("\n")}\n`;
    expect(read.artifact.bytes).toBe(Buffer.byteLength(expected));
    expect(read.text).toBe(expected.slice(0, read.text.length));
    const sent = await c.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: `[[tool:read_artifact {"id":"${artifactId}","page":2}]]` }) });
    expect(sent.status).toBe(202);
    const { turn } = (await sent.json()) as { turn: { id: string } };
    expect(await turnEnded(c, turn.id)).toBe("completed");
    const after = (await (await c.api(`/api/conversations/${id}/items`)).json()) as { items: Array<{ kind: string; turnId: string; output?: string }> };
    const call = after.items.find((item) => item.kind === "tool_call" && item.turnId === turn.id)!;
    expect(call.output).toContain(`[artifact ${artifactId}, page 2 of ${read.artifact.pages}`);

    // A fork copies the artifact inside the database; the fork reads it from any node.
    const forked = await c.api(`/api/conversations/${id}/fork`, { method: "POST", body: JSON.stringify({}) });
    expect(forked.status).toBe(201);
    const fork = ((await forked.json()) as { conversation: { id: string } }).conversation.id;
    expect(await blobPaths(fork)).toEqual([`artifacts/${artifactId}`]);
    const fromFork = await b.api(`/api/conversations/${fork}/artifacts/${artifactId}?page=1`);
    expect(((await fromFork.json()) as { text: string }).text).toBe(read.text);
    for (const server of [b, c]) expectNothingOnDisk(server);

    const out = makeTempHome("atrium-files-export-");
    try {
      const bundle = path.join(out.home, "bundle.tar.gz");
      const run = await runAtrium(["export", id, "-o", bundle], { home: out.home, env: { ATRIUM_DATABASE_URL: database.postgres.url } });
      expect(run.status).toBe(0);
      await tar.x({ file: bundle, cwd: out.home });
      expect(fs.readFileSync(path.join(out.home, id, "artifacts", artifactId), "utf8")).toBe(expected);
    } finally {
      out.cleanup();
    }
  });

  it("a node killed while it writes a 20 MiB upload leaves nothing of it: no head, no chunk", async () => {
    const data = Buffer.alloc(20 * 1024 * 1024 - 4096, "all work and no play\n");
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(data)], { type: "text/plain" }), "huge.txt");
    const uploading = fetch(`${b.url}/api/attachments`, { method: "POST", body: form, headers: { authorization: `Bearer ${TEST_TOKEN}` } }).catch(() => null);
    // B is killed once its transaction has begun writing chunks (seen from the database's side).
    await pollUntil(
      async () =>
        (
          await database.pool.query(
            "SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'INSERT INTO atrium_blob_chunks%' AND state IN ('active', 'idle in transaction')",
          )
        ).rowCount! > 0,
      { timeoutMs: 30_000, what: "B writing the upload's chunks" },
    );
    b.child.kill("SIGKILL");
    expect(await uploading).toBeNull();
    await pollUntil(
      async () => (await database.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'INSERT INTO atrium_blob_chunks%'")).rowCount === 0,
      { what: "B's connection to be gone" },
    );
    expect((await database.pool.query("SELECT 1 FROM atrium_blob_heads WHERE path LIKE '%-huge.txt'")).rowCount).toBe(0);
    expect((await database.pool.query("SELECT 1 FROM atrium_blob_chunks WHERE path LIKE '%-huge.txt'")).rowCount).toBe(0);
    // The cluster goes on: C takes an upload.
    expect((await upload(c, "after.txt", "text/plain", Buffer.from("after\n"))).bytes).toBe(6);
  });
});
