"use client";

import { usePathname, useRouter } from "next/navigation";
import { toast } from "sonner";
import type { Conversation } from "@/lib/events/entities";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { clearConversationDraft } from "@/components/shared/drafts";

/**
 * The sidebar's actions on a conversation, through the same API calls as the conversation's
 * own menu. The list itself follows from the list events every tab receives.
 */
export function useRowActions() {
  const router = useRouter();
  const pathname = usePathname();

  const patch = async (id: string, body: Partial<Pick<Conversation, "title" | "archived" | "protected">>, failure: string): Promise<boolean> => {
    try {
      await apiFetch(`/api/conversations/${id}`, { method: "PATCH", body });
      return true;
    } catch (error) {
      toast.error(`${failure}: ${errorMessage(error)}`);
      return false;
    }
  };

  return {
    rename: (id: string, title: string) => patch(id, { title }, "Could not rename"),
    async archive(id: string, archived: boolean) {
      if (!(await patch(id, { archived }, archived ? "Could not archive" : "Could not unarchive"))) return;
      toast.success(archived ? "Conversation archived" : "Conversation unarchived", {
        action: archived ? { label: "Undo", onClick: () => void patch(id, { archived: false }, "Could not unarchive") } : undefined,
      });
    },
    async protect(id: string, value: boolean) {
      if (await patch(id, { protected: value }, value ? "Could not protect" : "Could not unprotect")) {
        toast.success(value ? "Protected: it cannot be deleted until unprotected" : "No longer protected");
      }
    },
    async fork(id: string) {
      try {
        const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}/fork`, { method: "POST", body: { requestKey: newRequestKey() } });
        toast.success("Forked: you are now in the copy");
        router.push(`/c/${body.conversation.id}`);
      } catch (error) {
        toast.error(`Could not fork: ${errorMessage(error)}`);
      }
    },
    async remove(conversation: Conversation) {
      try {
        await apiFetch(`/api/conversations/${conversation.id}`, { method: "DELETE" });
        clearConversationDraft(conversation.id);
        toast.success(`Deleted “${conversation.title}”`);
        if (pathname === `/c/${conversation.id}`) router.push("/");
      } catch (error) {
        toast.error(`Could not delete: ${errorMessage(error)}`);
      }
    },
  };
}

export type RowActions = ReturnType<typeof useRowActions>;
