"use client";

import { useRouter } from "next/navigation";
import { useCallback } from "react";
import { toast } from "sonner";
import type { Conversation } from "@/lib/events/entities";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { clearConversationDraft } from "@/components/shared/drafts";
import { useConversationContext } from "./conversation-provider";

export type ConversationPatch = Partial<Pick<Conversation, "title" | "archived" | "protected" | "model" | "effort" | "cwd">>;

/** The changes the header, the banners and the composer make to the conversation itself; failures show as toasts. */
export function useConversationActions() {
  const router = useRouter();
  const { id, state, dispatch } = useConversationContext();
  const title = state.conversation.title;

  const patchConversation = useCallback(
    async (patch: ConversationPatch, failure: string) => {
      try {
        const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}`, { method: "PATCH", body: patch });
        dispatch({ type: "conversation", conversation: body.conversation });
        return body.conversation;
      } catch (error) {
        toast.error(`${failure}: ${errorMessage(error)}`);
        return null;
      }
    },
    [id, dispatch],
  );

  const archive = async (archived: boolean) => {
    const updated = await patchConversation({ archived }, archived ? "Could not archive" : "Could not unarchive");
    if (!updated) return;
    toast.success(archived ? "Conversation archived" : "Conversation unarchived", {
      action: archived ? { label: "Undo", onClick: () => void patchConversation({ archived: false }, "Could not unarchive") } : undefined,
    });
  };

  const protect = async (value: boolean) => {
    const updated = await patchConversation({ protected: value }, value ? "Could not protect" : "Could not unprotect");
    if (updated) toast.success(value ? "Protected: it cannot be deleted until unprotected" : "No longer protected");
  };

  const fork = async () => {
    try {
      const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}/fork`, { method: "POST", body: { requestKey: newRequestKey() } });
      toast.success("Forked: you are now in the copy");
      router.push(`/c/${body.conversation.id}`);
    } catch (error) {
      toast.error(`Could not fork: ${errorMessage(error)}`);
    }
  };

  const remove = async () => {
    try {
      await apiFetch(`/api/conversations/${id}`, { method: "DELETE" });
      clearConversationDraft(id);
      toast.success(`Deleted “${title}”`);
      router.push("/");
      router.refresh();
    } catch (error) {
      toast.error(`Could not delete: ${errorMessage(error)}`);
    }
  };

  return { patchConversation, archive, protect, fork, remove };
}
