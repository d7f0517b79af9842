import type Database from "better-sqlite3";
import type pg from "pg";
import { createIdGenerator } from "../ids";
import type { IndexWriter } from "../index-writer";
import { clusterRecordKey } from "./cluster-settings";
import { IndexReplica } from "./index-replica";
import { LeaseKeeper } from "./lease-keeper";
import { Leases, type Lease } from "./leases";
import { Nodes } from "./nodes";
import { PostgresRecordStore } from "./postgres-record-store";
import { RecordFeed } from "./record-feed";
import { ensurePostgresSchema } from "./schema";
import { databasePool } from "./database-json";

export interface ClusterNodeOptions {
  /** ATRIUM_DATABASE_URL or config database.url. */
  databaseUrl: string;
  /** ATRIUM_NODE_URL: where other nodes reach this one (null: not reachable by other nodes). */
  nodeUrl: string | null;
  /** A new id (a ULID) at every start unless given: a restarted node is a new node, and fences its former self. */
  nodeId?: string;
  /** cluster.leaseSeconds (10 by default). */
  leaseSeconds?: number;
  /** How often the node says it is alive; a third of the lease by default. */
  heartbeatMs?: number;
  /** A lease this node lost (another node took it): its owner must stop. */
  onLost?: (lease: Lease) => void;
  log?: (message: string) => void;
  /** Connections of the node's pool (the feed's listening connection is one more). */
  poolSize?: number;
}

/**
 * One Atrium node of a cluster (DESIGN §10c), the parts that reach PostgreSQL put together: the
 * schema ensured, the node registered and seen at each heartbeat, its leases kept (LeaseKeeper),
 * its owners' record store fenced by those leases, the feed of every node's records, and the
 * cluster's record key. `stop` hands every lease back, so other nodes take them at once.
 */
export class ClusterNode {
  readonly leases: Leases;
  readonly keeper: LeaseKeeper;
  readonly nodes: Nodes;
  readonly records: PostgresRecordStore;
  readonly feed: RecordFeed;
  private readonly heartbeat: NodeJS.Timeout;
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly id: string,
    readonly url: string | null,
    readonly pool: pg.Pool,
    readonly recordKey: Buffer,
    private readonly options: ClusterNodeOptions,
  ) {
    const log = options.log ?? (() => undefined);
    this.leases = new Leases(pool, id, options.leaseSeconds ?? 10);
    this.keeper = new LeaseKeeper(this.leases, { onLost: options.onLost, log });
    this.nodes = new Nodes(pool);
    this.records = new PostgresRecordStore(pool, (conversationId) => this.keeper.lease(conversationId));
    this.feed = new RecordFeed({ pool, connectionString: options.databaseUrl, log });
    this.heartbeat = setInterval(() => {
      this.nodes.seen(id).catch((error: unknown) => log(`node ${id}: the heartbeat failed: ${String(error)}`));
    }, options.heartbeatMs ?? ((options.leaseSeconds ?? 10) * 1000) / 3);
    this.heartbeat.unref();
  }

  /** Connects, ensures the schema, registers the node and starts hearing the records of every node. */
  static async start(options: ClusterNodeOptions): Promise<ClusterNode> {
    const pool = databasePool(options.databaseUrl, options.poolSize ?? 10, (error) => options.log?.(`a database connection failed: ${error.message}`));
    try {
      await ensurePostgresSchema(pool);
      const recordKey = await clusterRecordKey(pool);
      const id = options.nodeId ?? createIdGenerator()();
      await new Nodes(pool).register(id, options.nodeUrl);
      const node = new ClusterNode(id, options.nodeUrl, pool, recordKey, options);
      await node.feed.start();
      return node;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /**
   * This node's index of the conversations it holds (DESIGN §10c: no replica of every conversation;
   * OwnerPlacement reads one in when it takes its lease and drops it when the lease goes), and the
   * index rows of what this node's owners write, into the cluster's tables with their records (issue 24).
   */
  async replicateIndex(client: Database.Database, writer: IndexWriter): Promise<IndexReplica> {
    const replica = new IndexReplica(this.pool, client, writer, this.options.log);
    this.records.writeIndexRows(replica.ownRows());
    return replica;
  }

  /** A clean stop: leases handed back, the heartbeat and the feed ended, the pool closed. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.heartbeat);
      await this.keeper.stop();
      await this.feed.stop();
      await this.pool.end();
    })();
    return this.stopping;
  }
}
