import { FlagIcon, TargetIcon } from "lucide-react";
import type { Item, Objective } from "@/lib/events/entities";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";

/** The first slice of an objective starts "Objective: …" (lib/engine/objectives.ts sliceText); later ones "Continue the objective: …". */
export const isFirstSlice = (item: Item) => (item.text ?? "").startsWith("Objective:");

/** A slice's input, shown as a compact marker rather than a message from the owner; its full text on demand. */
export function SliceMarker({ item, slice, sliceLimit, openedRow = false }: { item: Item; slice: number | null; sliceLimit: number | null; openedRow?: boolean }) {
  const label = slice === null ? "Objective slice" : `Slice ${slice}${sliceLimit ? ` of ${sliceLimit}` : ""}`;
  return (
    <div data-item-kind="user_message" data-origin="objective" className="flex justify-center">
      <Collapsible className="group/slice grid max-w-[85%] justify-items-center gap-1">
        <CollapsibleTrigger className="flex items-center gap-1.5 rounded-full border border-dashed px-3 py-1 text-xs text-muted-foreground hover:text-foreground" aria-label={`${label}: show its text`}>
          <TargetIcon className="size-3.5" aria-hidden />
          {slice === 1 && !openedRow ? `Objective opened · ${label}` : label}
        </CollapsibleTrigger>
        <CollapsibleContent className="rounded-lg bg-muted px-3 py-2 text-xs whitespace-pre-wrap">{item.text}</CollapsibleContent>
      </Collapsible>
    </div>
  );
}

const END_TEXT: Record<Exclude<Objective["status"], "open">, string> = {
  paused: "Objective paused",
  waiting_event: "Objective waiting for an event",
  completed: "Objective completed",
  blocked: "Objective blocked",
  cancelled: "Objective cancelled",
};

/** Where the latest objective stands once it is no longer running slices: a row after its last slice. */
export function ObjectiveEndRow({ objective }: { objective: Objective }) {
  if (objective.status === "open") return null;
  const limitReached = objective.status === "paused" && objective.slices >= objective.sliceLimit;
  return (
    <p role="note" data-objective-status={objective.status} className="flex items-center justify-center gap-1.5 text-xs text-muted-foreground">
      <FlagIcon className="size-3.5" aria-hidden />
      {limitReached ? `Objective paused: the slice limit (${objective.sliceLimit}) was reached` : END_TEXT[objective.status]}
      {!limitReached && objective.reason ? `: ${objective.reason}` : ""}
      {` · ${objective.slices} ${objective.slices === 1 ? "slice" : "slices"}`}
    </p>
  );
}
