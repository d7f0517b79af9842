import type { Pool } from "pg";
import { migratePostgresIndex } from "./index-migrations";

/** The LISTEN/NOTIFY channel of record notices ({c: conversation, s: stream, q: seq}; RecordFeed). */
export const RECORD_CHANNEL = "atrium_records";

/** The LISTEN/NOTIFY channel of machine changes ({op: put|del, id}; ClusterMachines). */
export const MACHINE_CHANNEL = "atrium_machines";

/** The LISTEN/NOTIFY channel of browser-session changes ({op: add|del|all, h?: hash}; ClusterSessions). */
export const SESSION_CHANNEL = "atrium_sessions";

/** The LISTEN/NOTIFY channel of "always allow" rule changes ({op: put|del, id}; ClusterApprovalRules). */
export const APPROVAL_RULE_CHANNEL = "atrium_approval_rules";

/**
 * The cluster's record tables (DESIGN §10c). `atrium_records` is append-only: one row per record,
 * keyed (conversation, stream, seq), stream being "metadata" or a session id, `record` the same
 * JSON object a JSONL line holds. `atrium_leases` names the one node that may write a
 * conversation; a lease row is never deleted, so its epoch only grows. `atrium_nodes` lists the
 * nodes (GET /api/cluster). `atrium_sessions` the browser sessions' hashes. `atrium_settings` holds what every node shares (the record key);
 * `atrium_blob_heads` and `atrium_blob_chunks` the files (BlobStore); `atrium_creation_keys` the
 * requestKeys of creations (creation-keys.ts).
 * `atrium_append_records` is the only way records are written: in one
 * statement it locks the lease row, refuses a lease that is not the caller's current live one,
 * numbers a batch of records (one commit for all of them: the owner's group commit), and
 * announces each stream's last seq on RECORD_CHANNEL (a notice of a few dozen bytes, whatever
 * the records' size; NOTIFY is delivered at commit).
 */
export const POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS atrium_leases (
  conversation_id text PRIMARY KEY,
  node_id text NOT NULL,
  epoch bigint NOT NULL CHECK (epoch > 0),
  expires_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS atrium_nodes (
  id text PRIMARY KEY,
  url text,
  started_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS atrium_settings (
  name text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE IF NOT EXISTS atrium_blob_chunks (
  owner text NOT NULL,
  path text NOT NULL,
  chunk integer NOT NULL CHECK (chunk >= 0),
  data bytea NOT NULL,
  PRIMARY KEY (owner, path, chunk)
);

CREATE TABLE IF NOT EXISTS atrium_blob_heads (
  owner text NOT NULL,
  path text NOT NULL,
  bytes bigint NOT NULL CHECK (bytes >= 0),
  media_type text NOT NULL,
  sha256 text NOT NULL,
  PRIMARY KEY (owner, path)
);

-- Browser sessions (DESIGN §10): the SHA-256 of each session id, never the id.
CREATE TABLE IF NOT EXISTS atrium_sessions (
  hash text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
  created_at text NOT NULL,
  last_seen_at text NOT NULL,
  browser text NOT NULL
);

-- Linked machines (DESIGN §10b): the record machines.json holds (its token's SHA-256, never the
-- token), and the node holding its link now (null: none).
CREATE TABLE IF NOT EXISTS atrium_machines (
  id text PRIMARY KEY,
  record jsonb NOT NULL,
  linked_node text
);

-- When the machine linked to the node holding it (that node's clock, ISO 8601): every node shows it.
ALTER TABLE atrium_machines ADD COLUMN IF NOT EXISTS linked_at text;

-- "Always allow in this project" rules (DESIGN §6), in the order they were made (position); one
-- rule per project, tool and prefix.
CREATE TABLE IF NOT EXISTS atrium_approval_rules (
  id text PRIMARY KEY,
  position bigserial NOT NULL,
  machine text NOT NULL,
  path text NOT NULL,
  tool text NOT NULL,
  command_prefix text,
  created_at text NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS atrium_approval_rules_one ON atrium_approval_rules (machine, path, tool, coalesce(command_prefix, ''));

-- When a blob was written: an upload no message claimed goes after 24 hours.
ALTER TABLE atrium_blob_heads ADD COLUMN IF NOT EXISTS created_at timestamptz NOT NULL DEFAULT clock_timestamp();

CREATE TABLE IF NOT EXISTS atrium_records (
  conversation_id text NOT NULL,
  stream text NOT NULL,
  seq bigint NOT NULL CHECK (seq > 0),
  epoch bigint NOT NULL,
  record jsonb NOT NULL,
  PRIMARY KEY (conversation_id, stream, seq)
);

-- A creation's requestKey, looked up by any node before it creates (a retry landing on another node).
CREATE INDEX IF NOT EXISTS atrium_records_creation_key ON atrium_records ((record->>'requestKey'))
  WHERE stream = 'metadata' AND seq = 1;

-- A creation's claim on its requestKey (DESIGN §8): inserted in the transaction that writes the
-- conversation's first records, so of two identical creations on two nodes at once the database
-- keeps one. conversation_id null: the creation was undone and the key is free again. A deleted
-- conversation keeps its key, as one node's index does.
CREATE TABLE IF NOT EXISTS atrium_creation_keys (
  request_key text PRIMARY KEY,
  conversation_id text,
  request_hash text,
  claimed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS atrium_creation_keys_conversation ON atrium_creation_keys (conversation_id);

CREATE OR REPLACE FUNCTION atrium_refuse_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'atrium_records is append-only' USING ERRCODE = 'AT002';
END $$;

DROP TRIGGER IF EXISTS atrium_records_append_only ON atrium_records;
CREATE TRIGGER atrium_records_append_only BEFORE UPDATE OR DELETE ON atrium_records
  FOR EACH ROW EXECUTE FUNCTION atrium_refuse_record_change();

DROP FUNCTION IF EXISTS atrium_append_record(text, text, text, bigint, text, jsonb);

CREATE OR REPLACE FUNCTION atrium_append_records(
  p_conversation text, p_node text, p_epoch bigint, p_records jsonb
) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_item jsonb;
  v_stream text;
  v_seq bigint;
  v_last jsonb := '{}';
  v_record jsonb;
  v_written jsonb := '[]';
BEGIN
  PERFORM 1 FROM atrium_leases
    WHERE conversation_id = p_conversation AND node_id = p_node AND epoch = p_epoch
      AND expires_at > clock_timestamp()
    FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'lease of conversation % at epoch % is not held by node %', p_conversation, p_epoch, p_node
      USING ERRCODE = 'AT001';
  END IF;
  FOR v_item IN SELECT element FROM jsonb_array_elements(p_records) WITH ORDINALITY AS batch(element, n) ORDER BY n LOOP
    v_stream := v_item->>'stream';
    IF v_last ? v_stream THEN
      v_seq := (v_last->>v_stream)::bigint + 1;
    ELSE
      SELECT coalesce(max(seq), 0) + 1 INTO v_seq FROM atrium_records
        WHERE conversation_id = p_conversation AND stream = v_stream;
    END IF;
    v_last := v_last || jsonb_build_object(v_stream, v_seq);
    v_record := jsonb_build_object('v', 1, 'seq', v_seq, 'at', v_item->>'at') || (v_item->'body');
    INSERT INTO atrium_records (conversation_id, stream, seq, epoch, record)
      VALUES (p_conversation, v_stream, v_seq, p_epoch, v_record);
    v_written := v_written || jsonb_build_array(v_record);
  END LOOP;
  -- Small notices, sent at commit: each stream's last record now (RecordFeed reads the records themselves).
  FOR v_stream, v_seq IN SELECT key, value::bigint FROM jsonb_each_text(v_last) LOOP
    PERFORM pg_notify('${RECORD_CHANNEL}', json_build_object('c', p_conversation, 's', v_stream, 'q', v_seq)::text);
  END LOOP;
  RETURN v_written;
END $$;
`;

/** SQLSTATE of a write whose lease is not the writer's (stale epoch, another node's, expired). */
export const LEASE_REFUSED = "AT001";

/**
 * Creates the tables and functions if absent, and applies the index tables' migrations
 * (index-migrations.ts); safe to run on every node's start (one at a time, under an advisory lock).
 */
export async function ensurePostgresSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('atrium_schema'))");
    try {
      await client.query(POSTGRES_SCHEMA);
      await migratePostgresIndex(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('atrium_schema'))");
    }
  } finally {
    client.release();
  }
}
