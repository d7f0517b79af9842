import { toast } from "sonner";
import type { Conversation } from "@/lib/events/entities";
import { apiFetch, errorMessage, newRequestKey } from "./api-client";
import { clearConversationDraft } from "./drafts";

export type ConversationPatch = Partial<Pick<Conversation, "title" | "archived" | "protected" | "model" | "effort" | "cwd">>;

/** A PATCH of one conversation; a failure shows as a toast starting with `failure` and answers null. */
export type PatchConversation = (id: string, patch: ConversationPatch, failure: string) => Promise<Conversation | null>;

export const sendConversationPatch: PatchConversation = async (id, patch, failure) => {
  try {
    const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}`, { method: "PATCH", body: patch });
    return body.conversation;
  } catch (error) {
    toast.error(`${failure}: ${errorMessage(error)}`);
    return null;
  }
};

/**
 * The actions on a conversation that its header menu and the sidebar's row menu share: the same
 * API calls and the same toasts wherever they are started from.
 */
export function conversationCommands(patch: PatchConversation, open: (href: string) => void) {
  return {
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
        open(`/c/${body.conversation.id}`);
      } catch (error) {
        toast.error(`Could not fork: ${errorMessage(error)}`);
      }
    },
    /** Whether the conversation was deleted. */
    async remove(id: string, title: string): Promise<boolean> {
      try {
        await apiFetch(`/api/conversations/${id}`, { method: "DELETE" });
        clearConversationDraft(id);
        toast.success(`Deleted “${title}”`);
        return true;
      } catch (error) {
        toast.error(`Could not delete: ${errorMessage(error)}`);
        return false;
      }
    },
  };
}
