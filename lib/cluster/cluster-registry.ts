import type { ClusterSignatures } from "../auth/cluster-signature";
import type { Nodes } from "../store/postgres/nodes";

/** What the routes of a cluster node need beside the Runtime (DESIGN §10c). */
export interface RegisteredCluster {
  nodeId: string;
  nodeUrl: string | null;
  signatures: ClusterSignatures;
  nodes: Nodes;
}

/** On globalThis, as the Runtime is (lib/engine/runtime-registry): Next bundles routes apart from server.ts. */
const CLUSTER_KEY = Symbol.for("atrium.cluster");
type Registry = { [CLUSTER_KEY]?: RegisteredCluster };

export function registerCluster(cluster: RegisteredCluster | null): void {
  if (cluster) (globalThis as Registry)[CLUSTER_KEY] = cluster;
  else delete (globalThis as Registry)[CLUSTER_KEY];
}

/** The node's cluster side; null on a single node. */
export function getCluster(): RegisteredCluster | null {
  return (globalThis as Registry)[CLUSTER_KEY] ?? null;
}
