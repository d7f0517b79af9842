import { NewChat } from "@/components/new-chat/new-chat";
import { getRuntime } from "@/lib/engine/runtime-registry";

export const dynamic = "force-dynamic";

/** Home opens on the new-chat composer (DESIGN §9): type and press Enter. */
export default function HomePage() {
  const runtime = getRuntime();
  return (
    <NewChat
      title="Atrium"
      agents={runtime.listAgents()}
      models={runtime.models.list()}
      defaultModel={runtime.config.defaultModel}
      defaultCwd={runtime.config.defaultCwd}
    />
  );
}
