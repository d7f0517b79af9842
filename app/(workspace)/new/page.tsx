import type { Metadata } from "next";
import { NewChat } from "@/components/new-chat/new-chat";
import { getRuntime } from "@/lib/engine/runtime-registry";

export const metadata: Metadata = { title: "New chat" };
export const dynamic = "force-dynamic";

export default function NewChatPage() {
  const runtime = getRuntime();
  return (
    <NewChat
      agents={runtime.listAgents()}
      models={runtime.models.list()}
      defaultModel={runtime.config.defaultModel}
      defaultCwd={runtime.config.defaultCwd}
    />
  );
}
