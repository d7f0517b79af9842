import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { createIdGenerator } from "@/lib/store/ids";
import { BLOB_CHUNK_BYTES, BlobClashError, BlobStore } from "@/lib/store/postgres/blob-store";
import { usePostgresPerFile } from "../../support/embedded-postgres";

const newId = createIdGenerator();
const database = usePostgresPerFile();

/** Two nodes' blob stores: each on its own pool. */
const nodes = () => [new BlobStore(database.postgres.pool()), new BlobStore(database.postgres.pool())] as const;

describe("blob store", () => {
  it("gives back on another node the exact bytes written on one, with their size, type and hash", async () => {
    const [a, b] = nodes();
    const owner = newId();
    const data = crypto.randomBytes(5 * BLOB_CHUNK_BYTES + 12_345);
    const head = await a.put(owner, "artifacts/01ARTIFACT", data, "text/plain");
    expect(head).toEqual({ owner, path: "artifacts/01ARTIFACT", bytes: data.length, mediaType: "text/plain", sha256: crypto.createHash("sha256").update(data).digest("hex") });
    expect(await b.head(owner, "artifacts/01ARTIFACT")).toEqual(head);
    expect((await b.read(owner, "artifacts/01ARTIFACT"))!.equals(data)).toBe(true);
    expect(await b.read(owner, "artifacts/none")).toBeNull();
    await a.put(owner, "attachments/empty.txt", Buffer.alloc(0), "text/plain");
    expect((await b.read(owner, "attachments/empty.txt"))!.length).toBe(0);
    expect((await b.list(owner)).map((blob) => blob.path)).toEqual(["artifacts/01ARTIFACT", "attachments/empty.txt"]);
  });

  it("reads any range, across chunk boundaries, clipped at the end", async () => {
    const [a, b] = nodes();
    const owner = newId();
    const data = crypto.randomBytes(3 * BLOB_CHUNK_BYTES + 7);
    await a.put(owner, "artifacts/x", data, "text/plain");
    const ranges: Array<[number, number]> = [
      [0, 10],
      [BLOB_CHUNK_BYTES - 5, 10],
      [BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES],
      [BLOB_CHUNK_BYTES - 1, 2 * BLOB_CHUNK_BYTES + 2],
      [3 * BLOB_CHUNK_BYTES, 100],
    ];
    for (const [offset, length] of ranges) {
      expect((await b.read(owner, "artifacts/x", offset, length))!.equals(data.subarray(offset, offset + length))).toBe(true);
    }
    expect((await b.read(owner, "artifacts/x", data.length + 10, 5))!.length).toBe(0);
  });

  it("never changes a blob: the same bytes again are a no-op, other bytes are refused", async () => {
    const [a, b] = nodes();
    const owner = newId();
    const first = Buffer.from("first");
    const head = await a.put(owner, "attachments/a.txt", first, "text/plain");
    expect(await b.put(owner, "attachments/a.txt", Buffer.from("first"), "text/plain")).toEqual(head);
    await expect(b.put(owner, "attachments/a.txt", Buffer.from("second"), "text/plain")).rejects.toBeInstanceOf(BlobClashError);
    expect((await a.read(owner, "attachments/a.txt"))!.toString()).toBe("first");
  });

  it("lets one of two nodes writing other bytes to one place at once win, whole", async () => {
    const [a, b] = nodes();
    const owner = newId();
    const [left, right] = [crypto.randomBytes(2 * BLOB_CHUNK_BYTES), crypto.randomBytes(2 * BLOB_CHUNK_BYTES)];
    const answers = await Promise.allSettled([a.put(owner, "p", left, "application/octet-stream"), b.put(owner, "p", right, "application/octet-stream")]);
    const won = answers.filter((answer) => answer.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(answers.find((answer) => answer.status === "rejected")!.reason).toBeInstanceOf(BlobClashError);
    const stored = (await a.read(owner, "p"))!;
    expect(stored.equals(left) || stored.equals(right)).toBe(true);
    expect((await a.list(owner)).map((blob) => blob.sha256)).toEqual([crypto.createHash("sha256").update(stored).digest("hex")]);
  });

  it("shows a large blob to other nodes only once it is whole", async () => {
    const [a, b] = nodes();
    const owner = newId();
    const data = crypto.randomBytes(40 * BLOB_CHUNK_BYTES);
    let done = false;
    const writing = a.put(owner, "attachments/big.bin", data, "application/octet-stream").finally(() => (done = true));
    const seen: Array<number | null> = [];
    while (!done) seen.push((await b.head(owner, "attachments/big.bin"))?.bytes ?? null);
    await writing;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((bytes) => bytes === null || bytes === data.length)).toBe(true);
    expect((await b.read(owner, "attachments/big.bin"))!.equals(data)).toBe(true);
  });

  it("removes every blob of an owner and nothing of another", async () => {
    const [a, b] = nodes();
    const [gone, kept] = [newId(), newId()];
    await a.put(gone, "artifacts/1", crypto.randomBytes(BLOB_CHUNK_BYTES + 1), "text/plain");
    await a.put(kept, "artifacts/1", Buffer.from("kept"), "text/plain");
    await b.removeOwner(gone);
    expect(await a.list(gone)).toEqual([]);
    expect(await a.read(gone, "artifacts/1")).toBeNull();
    const chunks = await database.pool.query("SELECT count(*)::int AS n FROM atrium_blob_chunks WHERE owner = $1", [gone]);
    expect(chunks.rows[0].n).toBe(0);
    expect((await a.read(kept, "artifacts/1"))!.toString()).toBe("kept");
  });
});
