"use client";

import { usePathname, useRouter } from "next/navigation";
import type { Conversation } from "@/lib/events/entities";
import { conversationCommands, sendConversationPatch } from "@/components/shared/conversation-commands";

/**
 * The sidebar's actions on a conversation, through the same API calls as the conversation's
 * own menu. The list itself follows from the list events every tab receives.
 */
export function useRowActions() {
  const router = useRouter();
  const pathname = usePathname();
  const commands = conversationCommands(sendConversationPatch, (href) => router.push(href));

  return {
    rename: async (id: string, title: string) => (await sendConversationPatch(id, { title }, "Could not rename")) !== null,
    archive: commands.archive,
    protect: commands.protect,
    fork: commands.fork,
    async remove(conversation: Conversation) {
      if ((await commands.remove(conversation.id, conversation.title)) && pathname === `/c/${conversation.id}`) router.push("/");
    },
  };
}
export type RowActions = ReturnType<typeof useRowActions>;
