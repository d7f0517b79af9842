import type { Pool } from "pg";

/** A node's hold on one conversation: writes carry `epoch`; `expiresAt` is the database's clock. */
export interface Lease {
  conversationId: string;
  nodeId: string;
  epoch: number;
  expiresAt: Date;
}

/** The conversation is held by another node whose lease has not expired. */
export class LeaseHeldError extends Error {
  constructor(readonly holder: Lease) {
    super(`conversation ${holder.conversationId} is held by node ${holder.nodeId} (epoch ${holder.epoch}) until ${holder.expiresAt.toISOString()}`);
  }
}

interface LeaseRow {
  conversation_id: string;
  node_id: string;
  epoch: string;
  expires_at: Date;
}

const leaseOf = (row: LeaseRow): Lease => ({ conversationId: row.conversation_id, nodeId: row.node_id, epoch: Number(row.epoch), expiresAt: row.expires_at });

/**
 * Leases of conversations to nodes (DESIGN §10c), all times taken from the database's clock so
 * nodes' clocks never matter. Taking a lease always raises its epoch, also when the same node
 * takes it again (a restarted node must fence its former self); a lease row is never deleted, so
 * an epoch is never reused. `seconds` is cluster.leaseSeconds (10 by default).
 */
export class Leases {
  constructor(
    private readonly pool: Pool,
    readonly nodeId: string,
    readonly seconds = 10,
  ) {}

  /** The lease at a new epoch, if it is free, expired or already this node's; LeaseHeldError otherwise. */
  async take(conversationId: string): Promise<Lease> {
    const taken = await this.pool.query<LeaseRow>(
      `INSERT INTO atrium_leases (conversation_id, node_id, epoch, expires_at)
         VALUES ($1, $2, 1, clock_timestamp() + make_interval(secs => $3))
       ON CONFLICT (conversation_id) DO UPDATE
         SET node_id = EXCLUDED.node_id, epoch = atrium_leases.epoch + 1, expires_at = EXCLUDED.expires_at
         WHERE atrium_leases.expires_at <= clock_timestamp() OR atrium_leases.node_id = EXCLUDED.node_id
       RETURNING *`,
      [conversationId, this.nodeId, this.seconds],
    );
    if (taken.rows[0]) return leaseOf(taken.rows[0]);
    const holder = await this.holder(conversationId);
    // Expired between the two statements: free now, so the next try takes it (or meets its new holder).
    if (!holder) return this.take(conversationId);
    throw new LeaseHeldError(holder);
  }

  /** The lease pushed `seconds` further; null when it is no longer this node's at this epoch or has expired (lost). */
  async renew(lease: Lease): Promise<Lease | null> {
    const renewed = await this.pool.query<LeaseRow>(
      `UPDATE atrium_leases SET expires_at = clock_timestamp() + make_interval(secs => $4)
        WHERE conversation_id = $1 AND node_id = $2 AND epoch = $3 AND expires_at > clock_timestamp()
        RETURNING *`,
      [lease.conversationId, lease.nodeId, lease.epoch, this.seconds],
    );
    return renewed.rows[0] ? leaseOf(renewed.rows[0]) : null;
  }

  /** A clean stop: the lease expires now (the row and its epoch stay), so the next node takes it at once. */
  async handBack(lease: Lease): Promise<boolean> {
    const handed = await this.pool.query(
      `UPDATE atrium_leases SET expires_at = clock_timestamp()
        WHERE conversation_id = $1 AND node_id = $2 AND epoch = $3 AND expires_at > clock_timestamp()`,
      [lease.conversationId, lease.nodeId, lease.epoch],
    );
    return (handed.rowCount ?? 0) > 0;
  }

  /** Who holds the conversation now (null when nobody holds a live lease). */
  async holder(conversationId: string): Promise<Lease | null> {
    const rows = await this.pool.query<LeaseRow>(
      "SELECT * FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()",
      [conversationId],
    );
    return rows.rows[0] ? leaseOf(rows.rows[0]) : null;
  }

  /** Every live lease this node holds (for GET /api/cluster and a clean stop). */
  async held(): Promise<Lease[]> {
    const rows = await this.pool.query<LeaseRow>(
      "SELECT * FROM atrium_leases WHERE node_id = $1 AND expires_at > clock_timestamp() ORDER BY conversation_id",
      [this.nodeId],
    );
    return rows.rows.map(leaseOf);
  }
}
