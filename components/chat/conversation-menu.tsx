"use client";

import {
  ArchiveIcon,
  ArchiveRestoreIcon,
  GitForkIcon,
  MoreHorizontalIcon,
  PencilIcon,
  ShieldIcon,
  ShieldOffIcon,
  Trash2Icon,
} from "lucide-react";
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
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";

interface ConversationMenuProps {
  conversation: Conversation;
  onRename: () => void;
  onFork: () => void;
  onArchive: (archived: boolean) => void;
  onProtect: (value: boolean) => void;
  onDelete: () => Promise<void>;
}

export function deleteBlockedReason(conversation: Conversation): string | null {
  if (conversation.status !== "idle") return "Unavailable while a turn runs: interrupt it first";
  if (conversation.protected) return "Protected: unprotect it first";
  return null;
}

export function ConversationMenu({ conversation, onRename, onFork, onArchive, onProtect, onDelete }: ConversationMenuProps) {
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const blocked = deleteBlockedReason(conversation);

  return (
    <>
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button variant="ghost" size="icon-sm" aria-label="Conversation actions">
            <MoreHorizontalIcon />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="w-60">
          <DropdownMenuItem onSelect={onRename}>
            <PencilIcon />
            Rename
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={onFork}>
            <GitForkIcon />
            Fork
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => onArchive(!conversation.archived)}>
            {conversation.archived ? <ArchiveRestoreIcon /> : <ArchiveIcon />}
            {conversation.archived ? "Unarchive" : "Archive"}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => onProtect(!conversation.protected)}>
            {conversation.protected ? <ShieldOffIcon /> : <ShieldIcon />}
            {conversation.protected ? "Unprotect" : "Protect from deletion"}
          </DropdownMenuItem>
          <DropdownMenuSeparator />
          <DropdownMenuItem variant="destructive" disabled={blocked !== null} onSelect={() => setConfirming(true)} aria-describedby={blocked ? "delete-blocked-reason" : undefined}>
            <Trash2Icon />
            <span className="flex flex-col">
              <span>Delete…</span>
              {blocked && (
                <span id="delete-blocked-reason" className="text-xs font-normal text-muted-foreground">
                  {blocked}
                </span>
              )}
            </span>
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
      <AlertDialog open={confirming} onOpenChange={setConfirming}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Delete “{conversation.title}”?</AlertDialogTitle>
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
                  setConfirming(false);
                });
              }}
            >
              {deleting ? "Deleting…" : "Delete"}
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </>
  );
}
