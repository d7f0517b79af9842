import type { Metadata } from "next";
import { ToolsSettings } from "@/components/settings/tools-settings";
import { toolsOverview } from "@/lib/api/tools-overview";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Tools" };
export const dynamic = "force-dynamic";

export default async function ToolsSettingsPage() {
  const runtime = await signedInRuntime();
  return <ToolsSettings overview={toolsOverview(runtime, runtime.config.defaultCwd)} defaultCwd={runtime.config.defaultCwd} />;
}
