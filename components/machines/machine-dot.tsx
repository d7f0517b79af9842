import { cn } from "@/lib/utils";

/** A machine's online dot, with its status for screen readers. */
export function MachineDot({ online, className }: { online: boolean; className?: string }) {
  return (
    <span data-machine-status={online ? "online" : "offline"} className={cn("inline-flex size-2 shrink-0 rounded-full", online ? "bg-success" : "bg-muted-foreground/40", className)}>
      <span className="sr-only">{online ? "online" : "offline"}</span>
    </span>
  );
}
