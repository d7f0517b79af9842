import type { Metadata } from "next";
import { ToolsSettings, type ProjectChoiceEntry } from "@/components/settings/tools-settings";
import { toolsOverview } from "@/lib/api/tools-overview";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Tools" };
export const dynamic = "force-dynamic";

type Search = { cwd?: string | string[]; machine?: string | string[] };

/**
 * `?cwd=&machine=` picks whose project skills show: one of the recent projects (or the server's
 * folder); else the last used project. A project on a linked machine is read there.
 */
export default async function ToolsSettingsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const runtime = await signedInRuntime();
  const known: ProjectChoiceEntry[] = [];
  for (const project of [...(await runtime.reads.recentProjects()), { machine: "local", path: runtime.config.defaultCwd }]) {
    if (known.some((entry) => entry.machine === project.machine && entry.path === project.path)) continue;
    known.push({ machine: project.machine, path: project.path, machineName: runtime.machines.nameOf(project.machine) });
  }
  const asked = await searchParams;
  const chosen = known.find((entry) => entry.path === asked.cwd && entry.machine === (typeof asked.machine === "string" ? asked.machine : "local")) ?? known[0];
  const overview = await toolsOverview(runtime, { cwd: chosen.path, machine: chosen.machine });
  return <ToolsSettings overview={overview} project={chosen} projects={known.slice(0, 8)} />;
}
