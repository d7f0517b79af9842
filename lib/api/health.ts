import { getCluster } from "../cluster/cluster-registry";
import { openStreamCount } from "./sse";

export const HEALTH_PATH = "/api/health";

/**
 * `GET /api/health`'s body. One function for both answerers: the route handler, and
 * server.ts, which answers it itself while Next is still preparing.
 * `streams`: SSE responses open right now (every route), so tests can count a browser's connections.
 * `node`: on a node of a cluster (DESIGN §10c), which node answered.
 */
export function healthBody(): { status: "ok"; streams: number; node?: { id: string; url: string | null } } {
  const cluster = getCluster();
  const body = { status: "ok" as const, streams: openStreamCount() };
  return cluster ? { ...body, node: { id: cluster.nodeId, url: cluster.nodeUrl } } : body;
}
