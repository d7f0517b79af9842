import { InfoIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";

export function NoticeLine({ item }: { item: Item }) {
  return (
    <div className="flex items-center justify-center gap-2 py-1 text-center text-xs text-muted-foreground" role="note" data-item-kind="notice">
      <InfoIcon className="size-3.5 shrink-0" />
      <span>{item.text}</span>
    </div>
  );
}
