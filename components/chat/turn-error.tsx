import { XCircleIcon } from "lucide-react";
import type { Turn } from "@/lib/events/entities";
import { TurnTimelineButton } from "@/components/timeline/turn-timeline";

export function TurnError({ turn }: { turn: Turn }) {
  if (!turn.error) return null;
  return (
    <div role="alert" className="flex items-start gap-2 rounded-lg border border-destructive/40 bg-destructive/8 px-3 py-2 text-sm">
      <XCircleIcon className="mt-0.5 size-4 shrink-0 text-destructive" />
      <div className="min-w-0">
        <p className="font-medium text-destructive">This turn failed</p>
        <p className="text-sm break-words">{turn.error.message}</p>
        <p className="mt-0.5 font-mono text-xs text-muted-foreground">{turn.error.code}</p>
      </div>
      <TurnTimelineButton turnId={turn.id} className="ml-auto text-muted-foreground" />
    </div>
  );
}
