import fs from "node:fs";
import path from "node:path";
import { makeTempHome } from "./temp-home";
import { startServerProcess, type ServerProcess } from "./server-process";

export const CLUSTER_SECRET = "cluster-secret-0123456789abcdef0123456789";

export interface ClusterServer extends ServerProcess {
  home: string;
  /** The node id /api/health names. */
  nodeId: string;
  cleanup(): Promise<void>;
}

/**
 * The real server (server.ts, production build) as a node of a cluster on `databaseUrl`: its own
 * ATRIUM_HOME, a fixed loopback port (other nodes reach it at ATRIUM_NODE_URL), the shared
 * cluster secret and token. `config` is written to its config.json.
 */
export async function startClusterServer(databaseUrl: string, port: number, config: object = {}): Promise<ClusterServer> {
  const { home } = makeTempHome("atrium-node-");
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify(config));
  const server = await startServerProcess(home, {
    ATRIUM_DATABASE_URL: databaseUrl,
    ATRIUM_CLUSTER_SECRET: CLUSTER_SECRET,
    ATRIUM_NODE_URL: `http://127.0.0.1:${port}`,
    PORT: String(port),
  });
  const health = (await (await server.api("/api/health")).json()) as { node?: { id: string } };
  if (!health.node) throw new Error(`the server at ${server.url} is not a node of a cluster:\n${server.output()}`);
  return {
    ...server,
    home,
    nodeId: health.node.id,
    async cleanup() {
      // A node a test paused must run again to hear its SIGTERM.
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGCONT");
      await server.stop();
      // A checkpoint's git child may still be finishing its last write just after the server exits.
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
