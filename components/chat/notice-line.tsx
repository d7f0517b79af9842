import { FlagIcon, InfoIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";

/** A notice between messages; one the objective left (opened, paused, resumed, completed…) carries its flag. */
export function NoticeLine({ item }: { item: Item }) {
  const objective = item.origin === "objective";
  const Icon = objective ? FlagIcon : InfoIcon;
  return (
    <div className="flex items-center justify-center gap-2 py-1 text-center text-xs text-muted-foreground" role="note" data-item-kind="notice" data-origin={item.origin}>
      <Icon className="size-3.5 shrink-0" aria-hidden />
      <span>{item.text}</span>
    </div>
  );
}
