import crypto from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { inTransaction } from "./transaction";

/** Bytes per row: large files never go through one huge bytea value. */
export const BLOB_CHUNK_BYTES = 256 * 1024;

export interface BlobHead {
  owner: string;
  path: string;
  bytes: number;
  mediaType: string;
  sha256: string;
}

/** A blob at this place already holds other bytes: blobs never change once written. */
export class BlobClashError extends Error {
  readonly code = "blob_clash";
  constructor(owner: string, path: string) {
    super(`${owner}/${path} already holds other bytes`);
  }
}

interface HeadRow {
  owner: string;
  path: string;
  bytes: string;
  media_type: string;
  sha256: string;
}

/** What a write may add: a time for its head (an upload's 24 hours start then), and a check in its transaction (the writer's lease). */
export interface BlobPutOptions {
  createdAt?: Date;
  /** Runs inside the write's transaction before anything is written; throwing refuses the write. */
  check?: (client: PoolClient) => Promise<void>;
}

const headOf = (row: HeadRow): BlobHead => ({ owner: row.owner, path: row.path, bytes: Number(row.bytes), mediaType: row.media_type, sha256: row.sha256 });

/**
 * Files of a cluster in the database (DESIGN §10c: artifacts, attachments and uploads, so nothing
 * of a conversation lives on a node's disk): each blob is chunked (BLOB_CHUNK_BYTES per row) and
 * its head written in the same transaction after its chunks, so a blob is seen whole or not at
 * all. `owner` is a conversation id (or "uploads"), `path` the file's place under it, as in a
 * conversation directory ("artifacts/<id>", "attachments/<id>-<name>"). Blobs never change: writing
 * the same bytes again is a no-op (a retried or resumed copy), other bytes are a BlobClashError.
 */
export class BlobStore {
  constructor(private readonly pool: Pool) {}

  async put(owner: string, path: string, data: Buffer, mediaType: string, options: BlobPutOptions = {}): Promise<BlobHead> {
    const sha256 = crypto.createHash("sha256").update(data).digest("hex");
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await options.check?.(client);
      // Two writers of one place wait for each other here, so exactly one head is written.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [owner, path]);
      const existing = await client.query<HeadRow>("SELECT * FROM atrium_blob_heads WHERE owner = $1 AND path = $2", [owner, path]);
      if (existing.rows[0]) {
        await client.query("ROLLBACK");
        if (existing.rows[0].sha256 !== sha256) throw new BlobClashError(owner, path);
        return headOf(existing.rows[0]);
      }
      for (let chunk = 0, offset = 0; offset < data.length || chunk === 0; chunk += 1, offset += BLOB_CHUNK_BYTES) {
        await client.query("INSERT INTO atrium_blob_chunks (owner, path, chunk, data) VALUES ($1, $2, $3, $4)", [
          owner,
          path,
          chunk,
          data.subarray(offset, offset + BLOB_CHUNK_BYTES),
        ]);
      }
      const head = await client.query<HeadRow>(
        "INSERT INTO atrium_blob_heads (owner, path, bytes, media_type, sha256, created_at) VALUES ($1, $2, $3, $4, $5, coalesce($6, clock_timestamp())) RETURNING *",
        [owner, path, data.length, mediaType, sha256, options.createdAt ?? null],
      );
      await client.query("COMMIT");
      return headOf(head.rows[0]!);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async head(owner: string, path: string): Promise<BlobHead | null> {
    const rows = await this.pool.query<HeadRow>("SELECT * FROM atrium_blob_heads WHERE owner = $1 AND path = $2", [owner, path]);
    return rows.rows[0] ? headOf(rows.rows[0]) : null;
  }

  /** `length` bytes from `offset` (to the end when absent), reading only the chunks they span; null when there is no such blob. */
  async read(owner: string, path: string, offset = 0, length?: number): Promise<Buffer | null> {
    const head = await this.head(owner, path);
    if (!head) return null;
    const end = Math.min(head.bytes, length === undefined ? head.bytes : offset + length);
    if (offset >= end) return Buffer.alloc(0);
    const rows = await this.pool.query<{ chunk: number; data: Buffer }>(
      "SELECT chunk, data FROM atrium_blob_chunks WHERE owner = $1 AND path = $2 AND chunk BETWEEN $3 AND $4 ORDER BY chunk",
      [owner, path, Math.floor(offset / BLOB_CHUNK_BYTES), Math.floor((end - 1) / BLOB_CHUNK_BYTES)],
    );
    const first = Math.floor(offset / BLOB_CHUNK_BYTES) * BLOB_CHUNK_BYTES;
    return Buffer.concat(rows.rows.map((row) => row.data)).subarray(offset - first, end - first);
  }

  /** Every blob of an owner, by path. */
  async list(owner: string): Promise<BlobHead[]> {
    const rows = await this.pool.query<HeadRow>("SELECT * FROM atrium_blob_heads WHERE owner = $1 ORDER BY path", [owner]);
    return rows.rows.map(headOf);
  }

  /** Every blob of an owner removed (a deleted conversation's files); heads first, so none is seen half-removed. */
  async removeOwner(owner: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query("DELETE FROM atrium_blob_heads WHERE owner = $1", [owner]);
      await client.query("DELETE FROM atrium_blob_chunks WHERE owner = $1", [owner]);
    });
  }
}
