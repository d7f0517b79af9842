"use client";

import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import type { ArchiveBulkActions } from "./use-archive-bulk-actions";

/** Asks before deleting the selected conversations for good. */
export function ArchiveDeleteDialog({ selectedIds, actions }: { selectedIds: string[]; actions: ArchiveBulkActions }) {
  const { working, confirmDelete, setConfirmDelete, remove } = actions;
  return (
    <AlertDialog open={confirmDelete} onOpenChange={setConfirmDelete}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete {selectedIds.length === 1 ? "1 conversation" : `${selectedIds.length} conversations`}?</AlertDialogTitle>
          <AlertDialogDescription>
            Their files are removed from this machine. Protected conversations are skipped and say why. This cannot be undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={working !== null}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            className="bg-destructive text-white hover:bg-destructive/90"
            disabled={working !== null}
            onClick={(event) => {
              event.preventDefault();
              void remove(selectedIds);
            }}
          >
            {working === "delete" ? "Deleting…" : "Delete"}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
