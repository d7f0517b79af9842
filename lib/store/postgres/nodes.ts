import type { Pool } from "pg";

/** One node as GET /api/cluster lists it (DESIGN §10c). */
export interface ClusterNode {
  id: string;
  url: string | null;
  startedAt: string;
  lastSeenAt: string;
  /** Conversations whose live lease it holds. */
  conversations: number;
}

interface NodeRow {
  id: string;
  url: string | null;
  started_at: Date;
  last_seen_at: Date;
  conversations: string;
}

/** The cluster's node registry: a node registers when it starts and is seen at each heartbeat (database clock). */
export class Nodes {
  constructor(private readonly pool: Pool) {}

  async register(id: string, url: string | null): Promise<void> {
    await this.pool.query(
      `INSERT INTO atrium_nodes (id, url, started_at, last_seen_at) VALUES ($1, $2, clock_timestamp(), clock_timestamp())
       ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, started_at = EXCLUDED.started_at, last_seen_at = EXCLUDED.last_seen_at`,
      [id, url],
    );
  }

  async seen(id: string): Promise<void> {
    await this.pool.query("UPDATE atrium_nodes SET last_seen_at = clock_timestamp() WHERE id = $1", [id]);
  }

  /** Every node, oldest first, with the live leases it holds. */
  async list(): Promise<ClusterNode[]> {
    const rows = await this.pool.query<NodeRow>(
      `SELECT n.id, n.url, n.started_at, n.last_seen_at,
              (SELECT count(*) FROM atrium_leases l WHERE l.node_id = n.id AND l.expires_at > clock_timestamp()) AS conversations
         FROM atrium_nodes n ORDER BY n.started_at, n.id`,
    );
    return rows.rows.map((row) => ({
      id: row.id,
      url: row.url,
      startedAt: row.started_at.toISOString(),
      lastSeenAt: row.last_seen_at.toISOString(),
      conversations: Number(row.conversations),
    }));
  }
}
