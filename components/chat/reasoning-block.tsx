"use client";

import { BrainIcon, ChevronRightIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { cn } from "@/lib/utils";
import { ItemStatusBadge } from "./item-status-badge";

export function ReasoningBlock({ item }: { item: Item }) {
  const streaming = item.status === "streaming";
  const words = (item.text ?? "").trim().split(/\s+/).filter(Boolean).length;
  return (
    <Collapsible className="group/reasoning" data-item-kind="reasoning">
      <CollapsibleTrigger className="flex items-center gap-1.5 rounded-md py-1 text-sm text-muted-foreground transition-colors hover:text-foreground">
        <BrainIcon className={cn("size-4", streaming && "animate-pulse")} />
        <span>{streaming ? "Thinking…" : "Reasoning"}</span>
        {!streaming && words > 0 && <span className="text-xs">· {words} words</span>}
        <ChevronRightIcon className="size-3.5 transition-transform group-data-[state=open]/reasoning:rotate-90" />
        <ItemStatusBadge status={item.status} />
      </CollapsibleTrigger>
      <CollapsibleContent>
        <div className="mt-1 border-l-2 pl-3 text-sm whitespace-pre-wrap text-muted-foreground">{item.text}</div>
      </CollapsibleContent>
    </Collapsible>
  );
}
