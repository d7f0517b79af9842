import type { Metadata } from "next";
import { PageHeader } from "@/components/sidebar/page-header";
import { ModelsSettings } from "@/components/settings/models-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Models" };
export const dynamic = "force-dynamic";

export default async function ModelsSettingsPage() {
  const runtime = await signedInRuntime();
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <ModelsSettings models={runtime.models.list()} defaultModel={runtime.config.defaultModel} />
    </>
  );
}
