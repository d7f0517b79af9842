import { describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { createIdGenerator } from "@/lib/store/ids";
import { BlobFiles } from "@/lib/store/postgres/blob-files";
import { Leases, type Lease } from "@/lib/store/postgres/leases";
import { usePostgresPerFile } from "../../support/embedded-postgres";

/**
 * The database backend of a conversation's files (DESIGN §10c) on a real PostgreSQL: two nodes'
 * BlobFiles, each with its own pool and its own leases. The one-writer rule holds for files as
 * for records; claims of uploads are all-or-nothing and happen once.
 */
const newId = createIdGenerator();
const database = usePostgresPerFile();

/** A node: its BlobFiles writing under the leases it holds (as LeaseKeeper would report them). */
function node() {
  const nodeId = newId();
  const held = new Map<string, Lease>();
  const leases = new Leases(database.postgres.pool(), nodeId, 10);
  const files = new BlobFiles(database.postgres.pool(), nodeId, (conversationId) => held.get(conversationId) ?? null);
  return {
    files,
    async take(conversationId: string) {
      held.set(conversationId, await leases.take(conversationId));
    },
  };
}

const heads = async (owner: string) =>
  (await database.pool.query<{ path: string }>("SELECT path FROM atrium_blob_heads WHERE owner = $1 ORDER BY path", [owner])).rows.map((row) => row.path);
const chunks = async (owner: string) => Number((await database.pool.query("SELECT count(*) FROM atrium_blob_chunks WHERE owner = $1", [owner])).rows[0].count);
const codeOf = (promise: Promise<unknown>) => promise.then(() => "ok", (error: unknown) => (error instanceof AtriumError ? error.code : String(error)));

describe("conversation files in the database", () => {
  it("keeps the upload rules of the files backend: 20 MiB, the allowed types, a cleaned name", async () => {
    const { files } = node();
    expect(await codeOf(files.saveUpload(newId(), "big.txt", "text/plain", Buffer.alloc(20 * 1024 * 1024 + 1), new Date()))).toBe("payload_too_large");
    expect(await codeOf(files.saveUpload(newId(), "tool.exe", "application/x-msdownload", Buffer.from("MZ"), new Date()))).toBe("unsupported_media_type");
    const id = newId();
    expect(await files.saveUpload(id, "../../etc/pass wd.md", "", Buffer.from("# hi"), new Date())).toEqual({ id, name: "pass wd.md", mediaType: "text/markdown", bytes: 4 });
    expect(await heads("uploads")).toContain(`${id}-pass wd.md`);
  });

  it("writes a conversation's artifact only under the writer's live lease: a former owner is refused", async () => {
    const a = node();
    const b = node();
    const conversationId = newId();
    expect(await codeOf(a.files.writeArtifact(conversationId, newId(), "no lease"))).toBe("node_unavailable");
    await a.take(conversationId);
    const first = newId();
    await a.files.writeArtifact(conversationId, first, "line\n".repeat(100_000));
    expect((await b.files.readArtifactPage(conversationId, first, 2))!.artifact).toEqual({ id: first, bytes: 500_000, pages: 8 });

    // B takes the conversation over (A's lease made to expire): A's next write is refused, B's goes in.
    await database.pool.query("UPDATE atrium_leases SET expires_at = clock_timestamp() WHERE conversation_id = $1", [conversationId]);
    await b.take(conversationId);
    const late = newId();
    expect(await codeOf(a.files.writeArtifact(conversationId, late, "late"))).toBe("node_unavailable");
    expect(await codeOf(a.files.claimUploads(conversationId, []))).toBe("node_unavailable");
    await b.files.writeArtifact(conversationId, newId(), "on time");
    expect(await b.files.readArtifactPage(conversationId, late, 1)).toBeNull();
    expect((await heads(conversationId)).length).toBe(2);
  });

  it("claims an upload another node took in, once: two claims at once give one attachment and one not_found", async () => {
    const a = node();
    const b = node();
    const [one, two] = [newId(), newId()];
    await Promise.all([a.take(one), b.take(two)]);
    const upload = await b.files.saveUpload(newId(), "notes.txt", "text/plain", Buffer.from("remember the milk\n"), new Date());
    const outcomes = await Promise.allSettled([a.files.claimUploads(one, [upload.id]), b.files.claimUploads(two, [upload.id])]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const winner = outcomes[0].status === "fulfilled" ? one : two;
    const loser = winner === one ? two : one;
    expect(await heads(winner)).toEqual([`attachments/${upload.id}-notes.txt`]);
    expect(await heads(loser)).toEqual([]);
    expect(await chunks(loser)).toBe(0);
    expect(await heads("uploads")).not.toContain(`${upload.id}-notes.txt`);
    const served = await a.files.openAttachment(winner, upload);
    expect(Buffer.from(await new Response(served!.body).arrayBuffer()).toString()).toBe("remember the milk\n");
  });

  it("claims all named uploads or none, and gives them back for a retry when the message was not recorded", async () => {
    const a = node();
    const conversationId = newId();
    await a.take(conversationId);
    const kept = await a.files.saveUpload(newId(), "a.txt", "text/plain", Buffer.from("a"), new Date());
    const missing = newId();
    expect(await codeOf(a.files.claimUploads(conversationId, [kept.id, missing]))).toBe("not_found");
    expect(await heads(conversationId)).toEqual([]);
    expect(await heads("uploads")).toContain(`${kept.id}-a.txt`);

    const claimed = await a.files.claimUploads(conversationId, [kept.id]);
    expect(claimed.attachments).toEqual([kept]);
    await claimed.giveBack();
    expect(await heads(conversationId)).toEqual([]);
    const again = await a.files.claimUploads(conversationId, [kept.id]);
    await again.forget();
    expect(await heads(conversationId)).toEqual([`attachments/${kept.id}-a.txt`]);
  });

  it("removes unclaimed uploads after 24 hours only, and a deleted conversation's files whole", async () => {
    const a = node();
    const now = new Date();
    const old = await a.files.saveUpload(newId(), "old.txt", "text/plain", Buffer.from("old"), new Date(now.getTime() - 25 * 3_600_000));
    const fresh = await a.files.saveUpload(newId(), "fresh.txt", "text/plain", Buffer.from("fresh"), new Date(now.getTime() - 23 * 3_600_000));
    expect(await a.files.removeStaleUploads(now)).toBeGreaterThanOrEqual(1);
    const uploads = await heads("uploads");
    expect(uploads).not.toContain(`${old.id}-old.txt`);
    expect(uploads).toContain(`${fresh.id}-fresh.txt`);
    expect(Number((await database.pool.query("SELECT count(*) FROM atrium_blob_chunks WHERE owner = 'uploads' AND path = $1", [`${old.id}-old.txt`])).rows[0].count)).toBe(0);

    const conversationId = newId();
    await a.take(conversationId);
    await a.files.writeArtifact(conversationId, newId(), "x".repeat(600_000));
    await (await a.files.claimUploads(conversationId, [fresh.id])).forget();
    await a.files.removeConversation(conversationId);
    expect(await heads(conversationId)).toEqual([]);
    expect(await chunks(conversationId)).toBe(0);
  });
});
