import type { Pool, PoolClient } from "pg";

export interface UploadRow {
  path: string;
  bytes: string;
  media_type: string;
}

/** The upload with this id (its blob path is `<id>-<name>`; ids are ULIDs, so LIKE sees no wildcard in them). */
export async function uploadRowOf(db: Pool | PoolClient, id: string): Promise<UploadRow | null> {
  const rows = await db.query<UploadRow>("SELECT path, bytes, media_type FROM atrium_blob_heads WHERE owner = 'uploads' AND path LIKE $1", [`${id}-%`]);
  return rows.rows[0] ?? null;
}

/**
 * A blob moved to another place inside the caller's transaction: its chunks re-keyed, its head
 * written there (`freshTime`: the head's time starts again then, as an upload given back gets 24
 * hours more). The head at `from` is deleted first: of two moves of one blob at once, the second waits
 * on its row and then finds nothing (false), so exactly one claim of an upload succeeds.
 */
export async function moveBlob(
  client: PoolClient,
  from: { owner: string; path: string },
  to: { owner: string; path: string },
  freshTime: Date | null,
): Promise<boolean> {
  const head = await client.query<{ bytes: string; media_type: string; sha256: string; created_at: Date }>(
    "DELETE FROM atrium_blob_heads WHERE owner = $1 AND path = $2 RETURNING bytes, media_type, sha256, created_at",
    [from.owner, from.path],
  );
  const known = head.rows[0];
  if (!known) return false;
  await client.query("UPDATE atrium_blob_chunks SET owner = $3, path = $4 WHERE owner = $1 AND path = $2", [from.owner, from.path, to.owner, to.path]);
  await client.query(
    "INSERT INTO atrium_blob_heads (owner, path, bytes, media_type, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
    [to.owner, to.path, known.bytes, known.media_type, known.sha256, freshTime ?? known.created_at],
  );
  return true;
}
