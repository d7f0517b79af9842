import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { getCluster } from "@/lib/cluster/cluster-registry";
import { AtriumError } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** DESIGN §10c: the nodes of the cluster, oldest first; `current` marks the node answering. */
export const GET = apiRoute(async () => {
  const cluster = getCluster();
  if (!cluster) throw new AtriumError("not_found", "this server is not part of a cluster (set ATRIUM_DATABASE_URL or database.url)");
  const nodes = await cluster.nodes.list();
  return json({ nodes: nodes.map((node) => ({ ...node, current: node.id === cluster.nodeId })) });
});
