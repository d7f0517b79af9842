import type { Conversation } from "@/lib/events/entities";
import { cn } from "@/lib/utils";

const LABEL: Record<Conversation["status"], string> = { idle: "Idle", running: "Running", waiting: "Waiting for you" };

export function StatusDot({ status, className }: { status: Conversation["status"]; className?: string }) {
  return (
    <span
      title={LABEL[status]}
      data-status={status}
      className={cn(
        "relative inline-flex size-2 shrink-0 rounded-full",
        status === "running" && "bg-success",
        status === "waiting" && "bg-warning",
        status === "idle" && "bg-muted-foreground/25",
        className,
      )}
    >
      {status === "running" && <span className="absolute inset-0 animate-ping rounded-full bg-success/60" />}
      <span className="sr-only">{LABEL[status]}</span>
    </span>
  );
}
