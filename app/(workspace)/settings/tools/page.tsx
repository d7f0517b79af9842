import type { Metadata } from "next";
import { ToolsSettings } from "@/components/settings/tools-settings";
import { toolsOverview } from "@/lib/api/tools-overview";
import { recentProjects } from "@/lib/store/projects";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Tools" };
export const dynamic = "force-dynamic";

/** `?cwd=` picks whose project skills show: one of the recent projects (or the server's folder); else the last used project. */
export default async function ToolsSettingsPage({ searchParams }: { searchParams: Promise<{ cwd?: string | string[] }> }) {
  const runtime = await signedInRuntime();
  const projects = recentProjects(runtime.store.index, { machine: "local" });
  const known = [...projects.map((project) => project.path), runtime.config.defaultCwd];
  const asked = (await searchParams).cwd;
  const cwd = typeof asked === "string" && known.includes(asked) ? asked : (projects[0]?.path ?? runtime.config.defaultCwd);
  return <ToolsSettings overview={toolsOverview(runtime, cwd)} cwd={cwd} projects={known.filter((path, index) => known.indexOf(path) === index).slice(0, 8)} />;
}
