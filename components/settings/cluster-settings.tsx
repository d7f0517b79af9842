import { ServerIcon } from "lucide-react";
import { MachineDot } from "@/components/machines/machine-dot";
import { dateTime, relativeTime } from "@/components/shared/format";
import { RefreshButton } from "./refresh-button";

export interface ClusterNodeView {
  id: string;
  url: string | null;
  startedAt: string;
  lastSeenAt: string;
  conversations: number;
  current: boolean;
}

/** A node seen this recently is up: it says so every few seconds (a third of the lease). */
const ONLINE_WITHIN_MS = 30_000;

/** Settings → Cluster: the nodes on this database, the ones running first; on a single server, how to make a cluster. */
export function ClusterSettings({ nodes, now }: { nodes: ClusterNodeView[] | null; now: number }) {
  return (
    <div className="mx-auto grid w-full max-w-2xl gap-4 overflow-y-auto p-4 md:p-6">{nodes ? <NodeList nodes={nodes} now={now} /> : <SingleServer />}</div>
  );
}

function NodeList({ nodes, now }: { nodes: ClusterNodeView[]; now: number }) {
  const online = (node: ClusterNodeView) => node.current || now - new Date(node.lastSeenAt).getTime() < ONLINE_WITHIN_MS;
  const running = nodes.filter(online);
  const stopped = nodes.filter((node) => !online(node)).sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt));
  return (
    <section aria-labelledby="cluster-nodes" className="grid gap-3 rounded-lg border p-4">
      <div className="flex items-center gap-2">
        <h2 id="cluster-nodes" className="flex items-center gap-2 text-sm font-semibold">
          <ServerIcon className="size-4" />
          Nodes
        </h2>
        <RefreshButton />
      </div>
      <p className="text-xs text-muted-foreground">
        Every node answers for every conversation. A conversation runs on the node holding its lease; the others pass its commands on and relay its events. A node that
        stops hands its conversations back; one that dies loses them when its lease runs out, and the next node to need them takes them over.
      </p>
      <ul className="grid gap-3" aria-label="Running nodes">
        {running.map((node) => (
          <NodeRow key={node.id} node={node} online now={now} />
        ))}
      </ul>
      {stopped.length > 0 && (
        <details className="text-sm">
          <summary className="cursor-pointer text-xs text-muted-foreground">Stopped nodes ({stopped.length})</summary>
          <ul className="mt-3 grid gap-3" aria-label="Stopped nodes">
            {stopped.slice(0, 20).map((node) => (
              <NodeRow key={node.id} node={node} online={false} now={now} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function NodeRow({ node, online, now }: { node: ClusterNodeView; online: boolean; now: number }) {
  return (
    <li className="grid gap-1 text-sm" aria-label={`Node ${node.id}`} data-node-id={node.id}>
      <span className="flex flex-wrap items-center gap-2">
        <MachineDot online={online} />
        <span className="font-mono text-xs font-medium break-all">{node.id}</span>
        {node.current && <span className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground">this node</span>}
        <span className="ml-auto text-xs text-muted-foreground tabular-nums">
          {node.conversations} {node.conversations === 1 ? "conversation" : "conversations"}
        </span>
      </span>
      <span className="text-xs text-muted-foreground">
        {node.url ?? "no address (ATRIUM_NODE_URL unset: other nodes cannot pass it commands)"} · started {dateTime(node.startedAt)} ·{" "}
        {online ? "running" : `last seen ${relativeTime(node.lastSeenAt, now)}`}
      </span>
    </li>
  );
}

function SingleServer() {
  return (
    <section aria-labelledby="cluster-single" className="grid gap-3 rounded-lg border p-4 text-sm">
      <h2 id="cluster-single" className="flex items-center gap-2 text-sm font-semibold">
        <ServerIcon className="size-4" />
        This server runs alone
      </h2>
      <p className="text-muted-foreground">
        Its conversations are files in its data directory. A team can run several Atrium nodes on one PostgreSQL database instead: start each with{" "}
        <code className="font-mono text-xs">ATRIUM_DATABASE_URL</code>, <code className="font-mono text-xs">ATRIUM_NODE_URL</code> and a shared{" "}
        <code className="font-mono text-xs">ATRIUM_CLUSTER_SECRET</code> (the README's “Run a team cluster” says how).
      </p>
      <p className="text-muted-foreground">To copy this server&apos;s conversations into a cluster, stop it and run:</p>
      <code className="rounded-md bg-muted p-3 font-mono text-xs break-all select-all">npx atrium migrate --to postgres://user:password@host:5432/atrium</code>
    </section>
  );
}
