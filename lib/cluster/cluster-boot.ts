import { assertClusterSecret, ClusterSignatures } from "../auth/cluster-signature";
import type { AtriumConfig } from "../config/config";
import { ClusterNode } from "../store/postgres/cluster-node";
import { BlobFiles } from "../store/postgres/blob-files";
import { backfillIndexRows } from "../store/postgres/index-backfill";
import { ClusterSessions } from "./cluster-sessions";
import { ClusterMachines } from "./cluster-machines";
import { ClusterApprovalRules } from "./cluster-approval-rules";
import { useApprovalRuleBook } from "../tools/approval-rules";
import { ClusterRecords } from "../store/postgres/cluster-records";
import type { Lease } from "../store/postgres/leases";
import { MetadataChanges, type MetadataChange } from "../store/postgres/metadata-changes";
import { OwnerPlacement } from "../store/postgres/owner-placement";
import type { Store } from "../store/store";

/** A node's cluster side as server.ts starts it (DESIGN §10c). */
export interface ClusterBoot {
  node: ClusterNode;
  records: ClusterRecords;
  /** The conversations' files (uploads, attachments, artifacts) in the database: nothing of them on this node's disk. */
  files: BlobFiles;
  signatures: ClusterSignatures;
  /** The browser sessions, shared by every node (hashes only). */
  sessions: ClusterSessions;
  /** The linked machines' records, shared by every node. */
  machines: ClusterMachines;
  /** The "always allow" rules, shared by every node (the data directory's rules once attached). */
  approvalRules: ClusterApprovalRules;
  /** Once the Store exists: its index replicated from the database, and owners placed by lease. */
  attach(store: Store): Promise<OwnerPlacement>;
  /** Other nodes' changes to a conversation's metadata, as the feed announces them (after attach), read only while `wanted`. */
  onChanged(listener: (change: MetadataChange) => Promise<void> | void, wanted: () => boolean): void;
  /** Who to tell when a lease is lost (the Runtime's owners; set once it exists). */
  onLost(listener: (conversationId: string) => void): void;
  stop(): Promise<void>;
}

/**
 * Starts the node's database side before its Store: ClusterNode (schema, registration, leases,
 * the feed), the Store's record backend, and the node-to-node signatures. ATRIUM_NODE_URL names
 * where other nodes reach this one; without it, http://host:port of this server.
 */
export async function bootCluster(options: {
  databaseUrl: string;
  config: AtriumConfig;
  host: string;
  port: number;
  env?: Readonly<Record<string, string | undefined>>;
  log: (message: string) => void;
}): Promise<ClusterBoot> {
  const env = options.env ?? process.env;
  const signatures = new ClusterSignatures(assertClusterSecret(env.ATRIUM_CLUSTER_SECRET));
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  const nodeUrl = env.ATRIUM_NODE_URL || (options.port ? `http://${hostForUrl}:${options.port}` : null);
  let lostListener: (conversationId: string) => void = () => undefined;
  let changedListener: (change: MetadataChange) => Promise<void> | void = () => undefined;
  let changesWanted = () => false;
  const node = await ClusterNode.start({
    databaseUrl: options.databaseUrl,
    nodeUrl,
    leaseSeconds: options.config.cluster.leaseSeconds,
    onLost: (lease: Lease) => {
      files.forget(lease.conversationId);
      lostListener(lease.conversationId);
    },
    log: options.log,
  });
  const records = new ClusterRecords(node, options.log);
  const shared = { pool: node.pool, feed: node.feed, log: options.log, nodeId: node.id, leaseSeconds: options.config.cluster.leaseSeconds };
  const [sessions, machines, approvalRules] = await Promise.all([ClusterSessions.start(shared), ClusterMachines.start(shared), ClusterApprovalRules.start(shared)]).catch(async (error: unknown) => {
    await node.stop();
    throw error;
  });
  const files = new BlobFiles(node.pool, node.id, (conversationId) => node.keeper.lease(conversationId));
  let attachedHome: string | null = null;
  options.log(`Atrium node ${node.id} joined the cluster${nodeUrl ? ` (reached at ${nodeUrl})` : ""}`);
  return {
    node,
    records,
    files,
    signatures,
    sessions,
    machines,
    approvalRules,
    async attach(store) {
      // The data directory keeps only the node's own config (DESIGN §10c): its rules are the cluster's.
      attachedHome = store.paths.home;
      useApprovalRuleBook(attachedHome, approvalRules);
      // After the index tables' migrations (ClusterNode.start): conversations of nodes before issue 24 get their rows.
      await backfillIndexRows(node.pool, store.paths.home, node.recordKey, options.log);
      const replica = await node.replicateIndex(store.index.$client, store.writer);
      records.replicateInto(replica);
      // Sidebars hear other nodes' changes from the feed and the database, not from this node's index.
      new MetadataChanges(node.pool, (conversationId) => records.isLoaded(conversationId), (change) => changedListener(change), () => changesWanted(), options.log).follow(node.feed);
      return new OwnerPlacement(node, records, replica);
    },
    onChanged(listener, wanted) {
      changedListener = listener;
      changesWanted = wanted;
    },
    onLost(listener) {
      lostListener = listener;
    },
    stop: async () => {
      // The machines' links this node held are handed back before the pool ends.
      await machines.stop();
      if (attachedHome !== null) useApprovalRuleBook(attachedHome, null);
      return node.stop();
    },
  };
}
