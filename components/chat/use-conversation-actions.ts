"use client";

import { useRouter } from "next/navigation";
import { useCallback } from "react";
import { conversationCommands, sendConversationPatch, type ConversationPatch } from "@/components/shared/conversation-commands";
import { useConversationContext } from "./conversation-provider";

export type { ConversationPatch } from "@/components/shared/conversation-commands";

/** The changes the header, the banners and the composer make to the conversation itself; failures show as toasts. */
export function useConversationActions() {
  const router = useRouter();
  const { id, state, dispatch } = useConversationContext();
  const title = state.conversation.title;

  const patchConversation = useCallback(
    async (patch: ConversationPatch, failure: string) => {
      const updated = await sendConversationPatch(id, patch, failure);
      if (updated) dispatch({ type: "conversation", conversation: updated });
      return updated;
    },
    [id, dispatch],
  );
  const commands = conversationCommands((_, patch, failure) => patchConversation(patch, failure), (href) => router.push(href));

  return {
    patchConversation,
    archive: (archived: boolean) => commands.archive(id, archived),
    protect: (value: boolean) => commands.protect(id, value),
    fork: () => commands.fork(id),
    async remove() {
      if (!(await commands.remove(id, title))) return;
      router.push("/");
      router.refresh();
    },
  };
}
