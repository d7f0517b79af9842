"use client";

import { RotateCcwIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { MessageAttachments } from "@/components/attachments/attachments";
import { CopyButton } from "./copy-button";
import { VersionSwitcher } from "./lineage";
import { Markdown } from "./markdown";

const ORIGIN_LABEL: Record<string, string> = {
  objective: "Objective slice",
  subagent: "From a subagent",
  webhook: "From a webhook",
  engine: "From Atrium",
};

export function UserMessage({ item, onRestart, restarting }: { item: Item; onRestart: (item: Item) => void; restarting: boolean }) {
  const text = item.text ?? "";
  const originLabel = item.origin && item.origin !== "owner" ? (ORIGIN_LABEL[item.origin] ?? `From ${item.origin}`) : null;
  return (
    <div className="group/user flex flex-col items-end gap-1" data-item-kind="user_message">
      {originLabel && (
        <Badge variant="outline" className="text-muted-foreground">
          {originLabel}
        </Badge>
      )}
      <div className="max-w-[85%] rounded-2xl rounded-br-md bg-muted px-4 py-2.5 text-[15px] md:max-w-[75%]">
        <Markdown text={text} />
        {item.attachments && item.attachments.length > 0 && <MessageAttachments attachments={item.attachments} />}
      </div>
      <div className="flex items-center gap-1">
        <VersionSwitcher item={item} />
      <div className="flex items-center gap-0.5 opacity-100 transition-opacity md:opacity-0 md:group-focus-within/user:opacity-100 md:group-hover/user:opacity-100">
        <CopyButton label="Copy message" getText={() => text} />
        <Button
          type="button"
          variant="ghost"
          size="xs"
          className="text-muted-foreground"
          disabled={restarting}
          onClick={() => onRestart(item)}
          data-restart-item={item.id}
          title="Start a new conversation from just before this message, with its text in the composer"
        >
          <RotateCcwIcon />
          <span className="sr-only sm:not-sr-only">Restart from here</span>
        </Button>
      </div>
      </div>
    </div>
  );
}
