import type { Metadata } from "next";
import { NewChat } from "@/components/new-chat/new-chat";
import { projectsStillThere } from "@/lib/store/projects";
import { signedInRuntime } from "../workspace-data";
import { checkProjectFolder } from "./actions";

export const metadata: Metadata = { title: "New chat" };

export const dynamic = "force-dynamic";

export default async function NewChatPage() {
  const runtime = await signedInRuntime();
  return (
    <NewChat
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
