import { ShieldCheckIcon, ShieldOffIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";
import { cn } from "@/lib/utils";

const DESCRIPTION: Record<NonNullable<Item["sandbox"]>, string> = {
  bwrap: "Ran in the sandbox (bubblewrap)",
  "sandbox-exec": "Ran in the sandbox (sandbox-exec)",
  off: "Ran without a sandbox: sandbox.mode is off",
  unavailable: "Ran without a sandbox: none is available on this machine",
};

/** Whether a tool process ran confined (DESIGN §5: the tool card and the timeline say so). */
export function SandboxLabel({ sandbox, className }: { sandbox: Item["sandbox"]; className?: string }) {
  if (!sandbox) return null;
  const confined = sandbox === "bwrap" || sandbox === "sandbox-exec";
  return (
    <span
      title={DESCRIPTION[sandbox]}
      data-sandbox={sandbox}
      className={cn("flex shrink-0 items-center gap-1 text-xs", confined ? "text-muted-foreground" : "text-warning-foreground", className)}
    >
      {confined ? <ShieldCheckIcon className="size-3.5" aria-hidden /> : <ShieldOffIcon className="size-3.5" aria-hidden />}
      {confined ? "sandboxed" : "not sandboxed"}
    </span>
  );
}
