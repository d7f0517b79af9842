"use client";

import { useCallback, useState } from "react";
import { toast } from "sonner";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { clearConversationDraft } from "@/components/shared/drafts";

type Working = "unarchive" | "delete" | null;

/** Runs one request per conversation; the ones that failed are counted, and the first reason shown. */
async function eachConversation(ids: string[], request: (id: string) => Promise<unknown>): Promise<string[]> {
  const failures: string[] = [];
  for (const id of ids) {
    try {
      await request(id);
    } catch (error) {
      failures.push(errorMessage(error));
    }
  }
  return failures;
}

function report(total: number, failures: string[], done: (count: string) => string, failed: string) {
  const count = total - failures.length;
  if (count > 0) toast.success(done(count === 1 ? "1 conversation" : `${count} conversations`));
  if (failures.length > 0) toast.error(`${failures.length} ${failed}: ${failures[0]}`);
}

/** Unarchive and delete, for one row or the selected ones; either clears the selection and reloads the page. */
export function useArchiveBulkActions(reload: () => void, clearSelection: () => void) {
  const [working, setWorking] = useState<Working>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const unarchive = useCallback(
    async (ids: string[]) => {
      setWorking("unarchive");
      const failures = await eachConversation(ids, (id) => apiFetch(`/api/conversations/${id}`, { method: "PATCH", body: { archived: false } }));
      setWorking(null);
      clearSelection();
      reload();
      report(ids.length, failures, (count) => `Unarchived ${count}`, "could not be unarchived");
    },
    [reload, clearSelection],
  );

  const remove = async (ids: string[]) => {
    setWorking("delete");
    const failures = await eachConversation(ids, async (id) => {
      await apiFetch(`/api/conversations/${id}`, { method: "DELETE" });
      clearConversationDraft(id);
    });
    setWorking(null);
    setConfirmDelete(false);
    clearSelection();
    reload();
    report(ids.length, failures, (count) => `Deleted ${count}`, "could not be deleted");
  };

  return { working, confirmDelete, setConfirmDelete, unarchive, remove };
}

export type ArchiveBulkActions = ReturnType<typeof useArchiveBulkActions>;
