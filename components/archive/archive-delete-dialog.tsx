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
export function ArchiveDeleteDialog({ selectedIds, protectedTitles, actions }: { selectedIds: string[]; protectedTitles: string[]; actions: ArchiveBulkActions }) {
  const { working, confirmDelete, setConfirmDelete, remove } = actions;
  return (
    <AlertDialog open={confirmDelete} onOpenChange={setConfirmDelete}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete {selectedIds.length === 1 ? "1 conversation" : `${selectedIds.length} conversations`}?</AlertDialogTitle>
          <AlertDialogDescription>
            Their files are removed from this machine. This cannot be undone.
          </AlertDialogDescription>
          {protectedTitles.length > 0 && (
            <p role="note" className="rounded-md border border-warning/50 bg-warning/10 px-3 py-2 text-sm">
              {protectedTitles.length === 1 ? `“${protectedTitles[0]}” is protected and will be kept.` : `${protectedTitles.length} of them are protected and will be kept: ${protectedTitles.map((title) => `“${title}”`).join(", ")}.`}{" "}
              {protectedTitles.length === 1 ? "Unprotect it from its menu to delete it." : "Unprotect them from their menus to delete them."}
            </p>
          )}
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
