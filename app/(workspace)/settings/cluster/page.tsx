import type { Metadata } from "next";
import { PageHeader } from "@/components/sidebar/page-header";
import { ClusterSettings } from "@/components/settings/cluster-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { getCluster } from "@/lib/cluster/cluster-registry";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Cluster" };
export const dynamic = "force-dynamic";

/** Settings → Cluster (DESIGN §10c): the nodes sharing this server's database, or how to make a cluster. */
export default async function ClusterSettingsPage() {
  await signedInRuntime();
  const cluster = getCluster();
  const nodes = cluster ? (await cluster.nodes.list()).map((node) => ({ ...node, current: node.id === cluster.nodeId })) : null;
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <ClusterSettings nodes={nodes} now={Date.now()} />
    </>
  );
}
