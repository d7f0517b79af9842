import type { Metadata } from "next";
import { PageHeader } from "@/components/sidebar/page-header";
import { AgentsSettings } from "@/components/settings/agents-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Agents" };
export const dynamic = "force-dynamic";

export default async function AgentsSettingsPage() {
  const runtime = await signedInRuntime();
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <AgentsSettings agents={runtime.agentSources()} defaultModel={runtime.config.defaultModel} />
    </>
  );
}
