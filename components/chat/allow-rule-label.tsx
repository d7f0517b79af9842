import { ListChecksIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";

/** On a tool card: this call ran without asking because of an "always allow in this project" rule. */
export function AllowRuleLabel({ allowedBy }: { allowedBy: Item["allowedBy"] }) {
  if (!allowedBy) return null;
  const what = allowedBy.commandPrefix ?? allowedBy.tool;
  return (
    <span
      data-allowed-by={allowedBy.ruleId}
      title={`Ran without asking: a rule allows ${allowedBy.commandPrefix ? `shell commands starting “${allowedBy.commandPrefix}”` : `every ${allowedBy.tool} call`} in this project (Settings → Approvals)`}
      className="flex shrink-0 items-center gap-1 text-xs text-muted-foreground"
    >
      <ListChecksIcon className="size-3.5" aria-hidden />
      allowed by rule: <code className="font-mono">{what}</code>
    </span>
  );
}
