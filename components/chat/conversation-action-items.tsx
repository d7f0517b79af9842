"use client";

import { ArchiveIcon, ArchiveRestoreIcon, GitForkIcon, LinkIcon, PencilIcon, ShieldIcon, ShieldOffIcon, Trash2Icon } from "lucide-react";
import { useId } from "react";
import type { Conversation } from "@/lib/events/entities";
import { DropdownMenuItem, DropdownMenuSeparator } from "@/components/ui/dropdown-menu";
import { deleteBlockedReason } from "./delete-conversation-dialog";

export interface ConversationActionHandlers {
  onRename: () => void;
  onFork: () => void;
  onArchive: (archived: boolean) => void;
  onProtect: (value: boolean) => void;
  onCopyLink: () => void;
  /** Opens the confirmation; the delete itself happens there. */
  onAskDelete: () => void;
}

/** The actions on one conversation, the same in the header's menu and the sidebar's (hover, "…" and right-click). */
export function ConversationActionItems({ conversation, handlers }: { conversation: Conversation; handlers: ConversationActionHandlers }) {
  const blocked = deleteBlockedReason(conversation);
  const reasonId = useId();
  return (
    <>
      <DropdownMenuItem onSelect={handlers.onRename}>
        <PencilIcon />
        Rename
      </DropdownMenuItem>
      <DropdownMenuItem onSelect={handlers.onFork}>
        <GitForkIcon />
        Fork
      </DropdownMenuItem>
      <DropdownMenuItem onSelect={handlers.onCopyLink}>
        <LinkIcon />
        Copy link
      </DropdownMenuItem>
      <DropdownMenuItem onSelect={() => handlers.onArchive(!conversation.archived)}>
        {conversation.archived ? <ArchiveRestoreIcon /> : <ArchiveIcon />}
        {conversation.archived ? "Unarchive" : "Archive"}
      </DropdownMenuItem>
      <DropdownMenuItem onSelect={() => handlers.onProtect(!conversation.protected)}>
        {conversation.protected ? <ShieldOffIcon /> : <ShieldIcon />}
        {conversation.protected ? "Unprotect" : "Protect from deletion"}
      </DropdownMenuItem>
      <DropdownMenuSeparator />
      <DropdownMenuItem variant="destructive" disabled={blocked !== null} onSelect={handlers.onAskDelete} aria-describedby={blocked ? reasonId : undefined}>
        <Trash2Icon />
        <span className="flex flex-col">
          <span>Delete…</span>
          {blocked && (
            <span id={reasonId} className="text-xs font-normal text-muted-foreground">
              {blocked}
            </span>
          )}
        </span>
      </DropdownMenuItem>
    </>
  );
}

/** Copies the conversation's address; says so, or why it could not. */
export async function copyConversationLink(conversationId: string, notify: { success: (text: string) => void; error: (text: string) => void }): Promise<void> {
  const url = `${window.location.origin}/c/${conversationId}`;
  try {
    await navigator.clipboard.writeText(url);
    notify.success("Link copied");
  } catch {
    notify.error(`Could not copy the link: ${url}`);
  }
}
