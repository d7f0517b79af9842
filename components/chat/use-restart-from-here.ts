"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import type { Conversation, Item } from "@/lib/events/entities";
import { ApiError, apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { conversationDraftKey, writeDraft } from "@/components/shared/drafts";
import type { RestartChoice } from "@/components/checkpoints/restart-dialog";

/** "Restart from here" on an item: the dialog's item, the files changed outside Atrium it warns about, and the rewind. */
export function useRestartFromHere(conversationId: string) {
  const router = useRouter();
  const [restartingItemId, setRestartingItemId] = useState<string | null>(null);
  const [restartItem, setRestartItem] = useState<Item | null>(null);
  const [restartOutside, setRestartOutside] = useState<string[] | null>(null);

  const open = (item: Item) => {
    setRestartOutside(null);
    setRestartItem(item);
  };

  const cancel = () => {
    setRestartItem(null);
    setRestartOutside(null);
  };

  const restartFrom = async (item: Item, choice: RestartChoice) => {
    setRestartingItemId(item.id);
    try {
      const body = await apiFetch<{ conversation: Conversation; draft: string; restored: string[] }>(`/api/conversations/${conversationId}/rewind`, {
        method: "POST",
        body: { itemId: item.id, restoreFiles: choice.restoreFiles, force: choice.force, requestKey: newRequestKey() },
      });
      // The draft is stored before navigating so the new conversation's composer opens with it.
      writeDraft(conversationDraftKey(body.conversation.id), body.draft);
      cancel();
      const restored = body.restored.length > 0 ? ` ${body.restored.length} ${body.restored.length === 1 ? "file" : "files"} restored.` : "";
      toast.success(`Restarted in a new conversation; edit the message and send it.${restored}`);
      router.push(`/c/${body.conversation.id}`);
    } catch (error) {
      const outside = error instanceof ApiError && error.code === "files_changed_outside" ? error.details.files : undefined;
      if (Array.isArray(outside)) setRestartOutside(outside.map(String));
      else toast.error(`Could not restart from here: ${errorMessage(error)}`);
    } finally {
      setRestartingItemId(null);
    }
  };

  const confirm = (choice: RestartChoice) => {
    if (restartItem) void restartFrom(restartItem, choice);
  };

  return { restartingItemId, restartItem, restartOutside, open, cancel, confirm };
}
