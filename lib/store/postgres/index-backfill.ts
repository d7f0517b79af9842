import type { Pool } from "pg";
import { ConversationIndexRows } from "./conversation-index-rows";
import { PG_INDEX_PREFIX } from "./index-tables";
import { inTransaction } from "./transaction";

/** Conversations with records (created, not deleted) and no row in the cluster's index tables. */
const MISSING = `SELECT r.conversation_id FROM atrium_records r
  WHERE r.stream = 'metadata' AND r.seq = 1
    AND NOT EXISTS (SELECT 1 FROM ${PG_INDEX_PREFIX}conversations c WHERE c.id = r.conversation_id)
    AND NOT EXISTS (SELECT 1 FROM atrium_records d
      WHERE d.conversation_id = r.conversation_id AND d.stream = 'metadata' AND d.record->>'type' = 'conversation.deleted')`;

/**
 * Index rows for the conversations nodes of the version before wrote without them (issue 24), so
 * the lists a node answers from the cluster's index tables miss none: each such conversation's
 * whole rows, derived from all its records (ConversationIndexRows, as `atrium migrate` does), at a
 * node's start. One conversation per transaction, which holds its lease row (an owner's append
 * waits for it, and then finds its rows whole) and looks again for its rows under a lock every
 * node's backfill takes: two nodes starting at once write each conversation once.
 */
export async function backfillIndexRows(pool: Pool, home: string, recordKey: Buffer, log: (message: string) => void = () => undefined): Promise<number> {
  const missing = await pool.query<{ conversation_id: string }>(MISSING);
  if (missing.rows.length === 0) return 0;
  const rows = new ConversationIndexRows(home, recordKey);
  let written = 0;
  try {
    for (const { conversation_id: conversationId } of missing.rows) {
      const wrote = await inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtext('atrium_index_backfill'))");
        await client.query("SELECT 1 FROM atrium_leases WHERE conversation_id = $1 FOR UPDATE", [conversationId]);
        const still = await client.query(`${MISSING} AND r.conversation_id = $1`, [conversationId]);
        if (still.rows.length === 0) return false;
        await rows.write(client, conversationId);
        return true;
      }).catch((error: unknown) => {
        // Records the index cannot take: the node starts; its owner's first write tries the whole rows again.
        log(`the index rows of conversation ${conversationId} could not be written: ${String(error)}`);
        return false;
      });
      if (wrote) written++;
    }
  } finally {
    rows.close();
  }
  if (written > 0) log(`the index rows of ${written} conversation(s) written by nodes of the version before were written`);
  return written;
}
