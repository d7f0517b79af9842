import { NewChat } from "@/components/new-chat/new-chat";
import { projectsStillThere } from "@/lib/store/projects";
import { checkProjectFolder } from "./new/actions";
import { signedInRuntime } from "./workspace-data";

export const dynamic = "force-dynamic";

/** Home opens on the new-chat composer (DESIGN §9): type and press Enter. */
export default async function HomePage() {
  const runtime = await signedInRuntime();
  return (
    <NewChat
      title="Atrium"
      agents={runtime.listAgents()}
      models={runtime.models.list()}
      defaultModel={runtime.config.defaultModel}
      defaultCwd={runtime.config.defaultCwd}
      machines={runtime.machines.list()}
      projects={projectsStillThere(await runtime.reads.recentProjects())}
      checkFolder={checkProjectFolder}
    />
  );
}
