import type { Pool, PoolClient } from "pg";
import { CreationKeyClaimedError } from "../store-cluster";
import { databaseText } from "./database-json";

/** What a lookup hears of records being written (RecordFeed's notices; not imported, which would make an import circle). */
export interface RecordNotices {
  onNotice(listener: (notice: { conversationId: string }) => void): () => void;
}

/** The conversation a creation's requestKey made, and the hash of the body it was made with (DESIGN §8). */
export interface KeyedCreation {
  conversationId: string;
  requestHash: string | null;
}

/** How long a creation that lost its key waits for the winner's first turn before answering with what there is. */
const FIRST_TURN_WAIT_MS = 15_000;
/** Looked at again this often without a notice (a claim given back writes no record). */
const LOOK_AGAIN_MS = 250;

/**
 * Claims `key` for a new conversation inside the caller's transaction, the one that writes the
 * conversation's first records (DESIGN §10c): the claim commits with them or not at all, so a
 * node dying part-way leaves no key claimed. Of two claims at once the database keeps one; the
 * other waits for its transaction to end, then throws CreationKeyClaimedError naming the winner.
 * A claim given back (its creation undone: conversation_id null) is taken again.
 */
export async function claimCreationKey(client: PoolClient, conversationId: string, key: string, hash: string | null): Promise<void> {
  const claimed = await client.query(
    `INSERT INTO atrium_creation_keys AS k (request_key, conversation_id, request_hash) VALUES ($1, $2, $3)
      ON CONFLICT (request_key) DO UPDATE
        SET conversation_id = EXCLUDED.conversation_id, request_hash = EXCLUDED.request_hash, claimed_at = clock_timestamp()
        WHERE k.conversation_id IS NULL
      RETURNING k.conversation_id`,
    [databaseText(key), conversationId, hash],
  );
  if (claimed.rowCount) return;
  // A new statement sees the winner's committed claim (the insert above waited for it).
  const holder = await client.query<{ conversation_id: string | null }>("SELECT conversation_id FROM atrium_creation_keys WHERE request_key = $1", [databaseText(key)]);
  throw new CreationKeyClaimedError(key, holder.rows[0]?.conversation_id ?? null);
}

/** A creation undone (its first message could not be recorded): its key is free for the retry, as on one node. */
export async function giveBackCreationKey(pool: Pool, conversationId: string): Promise<void> {
  await pool.query("UPDATE atrium_creation_keys SET conversation_id = NULL, request_hash = NULL WHERE conversation_id = $1", [conversationId]);
}

/**
 * The conversation created under `key` on any node (null: none, or its creation was undone), once
 * the creation is whole: a conversation's first turn is recorded a moment after its claim, so a
 * creation that lost the claim at the same instant waits for it (or for its deletion, or its
 * undoing) — unless its body differs (`hash`), which is answered idempotency_conflict at once. A
 * deleted conversation still holds its key, as the index of one node does: the key's replay
 * answers not_found. Conversations created before claims existed (or migrated, imported) are
 * found by their first record.
 */
export async function findKeyedCreation(pool: Pool, feed: RecordNotices, key: string, hash: string): Promise<KeyedCreation | null> {
  // One statement, so one snapshot: a claim and its first record commit together, and a creation
  // committing between two reads must not be taken for an older one found by its record.
  const rows = await pool.query<{ claimed: boolean; conversation_id: string | null; request_hash: string | null }>(
    `SELECT true AS claimed, conversation_id, request_hash FROM atrium_creation_keys WHERE request_key = $1
     UNION ALL
     (SELECT false, conversation_id, record->>'requestHash' FROM atrium_records
       WHERE stream = 'metadata' AND seq = 1 AND record->>'requestKey' = $1
       ORDER BY record->>'at' LIMIT 1)`,
    [databaseText(key)],
  );
  const claim = rows.rows.find((row) => row.claimed);
  if (claim) {
    if (claim.conversation_id === null) return null;
    const created = { conversationId: claim.conversation_id, requestHash: claim.request_hash };
    if (created.requestHash !== hash) return created;
    return (await waitUntilWhole(pool, feed, created.conversationId)) ? created : null;
  }
  const row = rows.rows[0];
  return row?.conversation_id ? { conversationId: row.conversation_id, requestHash: row.request_hash } : null;
}

/**
 * Waits until the claimed conversation has its first turn (a fork has none to wait for), is
 * deleted, or its claim is given back (false): looked at again at each notice of its records, and
 * at least every LOOK_AGAIN_MS (a claim given back writes no record). Once no node holds its
 * lease, or past the deadline, it is answered as it is, as a replay on one node after a crash
 * between the creation and its first message would be.
 */
async function waitUntilWhole(pool: Pool, feed: RecordNotices, conversationId: string): Promise<boolean> {
  const deadline = Date.now() + FIRST_TURN_WAIT_MS;
  let wake = () => undefined as void;
  const stop = feed.onNotice((notice) => {
    if (notice.conversationId === conversationId) wake();
  });
  try {
    for (;;) {
      const noticed = new Promise<void>((resolve) => (wake = resolve));
      const state = await creationState(pool, conversationId);
      if (!state || !state.claimed) return false;
      // No node holds it (its creator died or stopped before the first message): nobody will record the turn.
      if (state.whole || !state.held || Date.now() > deadline) return true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([noticed, new Promise<void>((resolve) => (timer = setTimeout(resolve, LOOK_AGAIN_MS)))]);
      clearTimeout(timer);
    }
  } finally {
    stop();
  }
}

/** whole: its first turn recorded (or a fork, or deleted); claimed: its key not given back; held: a live node holds it (may still record the turn). */
async function creationState(pool: Pool, conversationId: string): Promise<{ whole: boolean; claimed: boolean; held: boolean } | undefined> {
  const rows = await pool.query<{ whole: boolean; claimed: boolean; held: boolean }>(
    `SELECT (c.record->>'forkedFrom') IS NOT NULL
         OR EXISTS (SELECT 1 FROM atrium_records t WHERE t.conversation_id = $1 AND t.stream = 'metadata' AND t.record->>'type' = 'turn.started')
         OR EXISTS (SELECT 1 FROM atrium_records d WHERE d.conversation_id = $1 AND d.stream = 'metadata' AND d.record->>'type' = 'conversation.deleted') AS whole,
       EXISTS (SELECT 1 FROM atrium_creation_keys k WHERE k.conversation_id = $1) AS claimed,
       EXISTS (SELECT 1 FROM atrium_leases l WHERE l.conversation_id = $1 AND l.expires_at > clock_timestamp()) AS held
      FROM atrium_records c WHERE c.conversation_id = $1 AND c.stream = 'metadata' AND c.seq = 1`,
    [conversationId],
  );
  return rows.rows[0];
}
