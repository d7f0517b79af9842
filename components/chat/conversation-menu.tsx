"use client";

import { MoreHorizontalIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Conversation } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { DropdownMenu, DropdownMenuContent, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { ConversationActionItems, copyConversationLink } from "./conversation-action-items";
import { DeleteConversationDialog } from "./delete-conversation-dialog";
import { ProjectMenuLabel } from "@/components/machines/project-menu-label";

interface ConversationMenuProps {
  conversation: Conversation;
  onRename: () => void;
  onFork: () => void;
  onArchive: (archived: boolean) => void;
  onProtect: (value: boolean) => void;
  onDelete: () => Promise<void>;
}

export function ConversationMenu({ conversation, onRename, onFork, onArchive, onProtect, onDelete }: ConversationMenuProps) {
  const [confirming, setConfirming] = useState(false);
  const handlers = {
    onRename,
    onFork,
    onArchive,
    onProtect,
    onCopyLink: () => void copyConversationLink(conversation.id, toast),
    onAskDelete: () => setConfirming(true),
  };

  return (
    <>
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button variant="ghost" size="icon-sm" aria-label="Conversation actions">
            <MoreHorizontalIcon />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="w-64">
          <ProjectMenuLabel machineId={conversation.machine} cwd={conversation.cwd} />
          <ConversationActionItems conversation={conversation} handlers={handlers} />
        </DropdownMenuContent>
      </DropdownMenu>
      <DeleteConversationDialog title={conversation.title} open={confirming} onOpenChange={setConfirming} onDelete={onDelete} />
    </>
  );
}
