import type { Metadata } from "next";
import { ToolsSettings } from "@/components/settings/tools-settings";
import { toolsOverview } from "@/lib/api/tools-overview";
import { getRuntime } from "@/lib/engine/runtime-registry";

export const metadata: Metadata = { title: "Tools" };
export const dynamic = "force-dynamic";

export default function ToolsSettingsPage() {
  const runtime = getRuntime();
  return <ToolsSettings overview={toolsOverview(runtime, runtime.config.defaultCwd)} defaultCwd={runtime.config.defaultCwd} />;
}
