"use client";

import { useState } from "react";
import type { Conversation } from "@/lib/events/entities";
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

/** Why Delete is not offered right now, or null: a running turn or the protection stop it (DESIGN §9). */
export function deleteBlockedReason(conversation: Pick<Conversation, "status" | "protected">): string | null {
  if (conversation.status !== "idle") return "Unavailable while a turn runs: interrupt it first";
  if (conversation.protected) return "Protected: unprotect it first";
  return null;
}

interface DeleteConversationDialogProps {
  title: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDelete: () => Promise<void>;
}

/** "Delete …?" with what it removes; the dialog stays, saying Deleting…, until the request ends. */
export function DeleteConversationDialog({ title, open, onOpenChange, onDelete }: DeleteConversationDialogProps) {
  const [deleting, setDeleting] = useState(false);
  return (
    <AlertDialog open={open} onOpenChange={onOpenChange}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete “{title}”?</AlertDialogTitle>
          <AlertDialogDescription>
            This removes the conversation and all its files from this machine. Forks made from it are kept. This cannot be undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={deleting}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            className="bg-destructive text-white hover:bg-destructive/90"
            disabled={deleting}
            onClick={(event) => {
              event.preventDefault();
              setDeleting(true);
              onDelete().finally(() => {
                setDeleting(false);
                onOpenChange(false);
              });
            }}
          >
            {deleting ? "Deleting…" : "Delete"}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
