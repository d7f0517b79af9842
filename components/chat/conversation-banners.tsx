"use client";

import { toast } from "sonner";
import type { ModelInfo } from "@/lib/events/entities";
import { ArchivedBanner, MissingBanner, ObjectiveBanner } from "./banners";
import { useConversationContext } from "./conversation-provider";
import { ResyncErrorBanner } from "./resync-error-banner";
import { MachineOfflineBanner } from "@/components/machines/machine-offline-banner";
import { setObjectiveStatus } from "./slash-command-actions";
import { useConversationActions } from "./use-conversation-actions";

/** The strips under the header: a failed resync, what is missing after a move, the archive and the open objective. */
export function ConversationBanners({ models }: { models: ModelInfo[] }) {
  const { id, state } = useConversationContext();
  const { conversation } = state;
  const { patchConversation, archive } = useConversationActions();

  return (
    <>
      <ResyncErrorBanner />
      <MissingBanner
        conversation={conversation}
        models={models}
        onPatch={async (patch) => {
          const updated = await patchConversation(patch, "Could not update");
          if (updated && updated.missing.length === 0) toast.success("Ready to continue");
          return updated !== null;
        }}
      />
      <MachineOfflineBanner conversation={conversation} onPatch={async (patch) => (await patchConversation(patch, "Could not move the conversation")) !== null} />
      {conversation.archived && <ArchivedBanner onUnarchive={() => void archive(false)} />}
      {conversation.objective && <ObjectiveBanner objective={conversation.objective} onSetStatus={(status) => void setObjectiveStatus(id, status)} />}
    </>
  );
}
