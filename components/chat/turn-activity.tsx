import { Loader2Icon } from "lucide-react";
import type { Turn } from "@/lib/events/entities";

/** What the open turn is doing when nothing is streaming on screen. */
export function TurnActivity({ turn }: { turn: Turn }) {
  const label =
    turn.status === "waiting_approval" ? "Waiting for your approval" : turn.status === "waiting_user" ? "Waiting for your answer" : "Working…";
  return (
    <div role="status" className="flex items-center gap-2 text-sm text-muted-foreground">
      {turn.status === "running" ? (
        <Loader2Icon className="size-4 animate-spin" />
      ) : (
        <span className="size-2 rounded-full bg-warning" aria-hidden />
      )}
      {label}
    </div>
  );
}
