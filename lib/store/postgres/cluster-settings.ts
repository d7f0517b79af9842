import crypto from "node:crypto";
import type { Pool } from "pg";

const RECORD_KEY = "record_key";

/**
 * The cluster's record key (the HMAC key of RecordProofs, DESIGN §2): one for every node, made by
 * whichever node asks first, so a turn started or an approval decided on one node verifies on
 * the node that takes the conversation over. Kept in atrium_settings, never in a record.
 */
export async function clusterRecordKey(pool: Pool): Promise<Buffer> {
  await pool.query("INSERT INTO atrium_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    RECORD_KEY,
    crypto.randomBytes(32).toString("hex"),
  ]);
  const rows = await pool.query<{ value: string }>("SELECT value FROM atrium_settings WHERE name = $1", [RECORD_KEY]);
  const value = rows.rows[0]?.value ?? "";
  if (!/^[0-9a-f]{64}$/.test(value)) throw new Error("atrium_settings.record_key is not a record key (64 hex digits)");
  return Buffer.from(value, "hex");
}
