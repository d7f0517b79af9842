"use client";

import { CheckIcon, ListChecksIcon, Loader2Icon, ShieldAlertIcon, XIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Approval } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { describeToolInput } from "@/components/shared/format";
import { RememberRuleForm, type Remember } from "./remember-rule-form";
import { useApprovalMachine } from "@/components/machines/use-approval-machine";

type Deciding = "approve" | "deny" | "remember" | null;

/** Approve once, always allow in this project, or deny one pending tool call; the decision reaches every open tab as an event. */
export function ApprovalPrompt({ approval, onDecided }: { approval: Approval; onDecided?: (approval: Approval) => void }) {
  const [deciding, setDeciding] = useState<Deciding>(null);
  const [teaching, setTeaching] = useState(false);
  const decide = async (decision: "approve" | "deny", remember?: Remember) => {
    setDeciding(remember ? "remember" : decision);
    try {
      const body = await apiFetch<{ approval: Approval }>(`/api/approvals/${approval.id}`, {
        method: "POST",
        body: { decision, ...(remember ? { remember } : {}), requestKey: newRequestKey() },
      });
      if (remember) toast.success(`Always allowed in this project: ${remember.commandPrefix ?? remember.tool}. Settings → Approvals lists the rules.`);
      onDecided?.(body.approval);
      focusAfterDecision(approval.id);
    } catch (error) {
      toast.error(`Could not ${decision}: ${errorMessage(error)}`);
    } finally {
      setDeciding(null);
    }
  };
  return (
    <div role="group" aria-label={`Approval for ${approval.toolName}`} data-approval-id={approval.id} className="grid gap-3 rounded-lg border border-warning/50 bg-warning/10 p-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <ApprovalSummary approval={approval} />
        <div className="flex shrink-0 flex-wrap gap-2">
          <Button size="sm" variant="outline" disabled={deciding !== null} onClick={() => void decide("deny")}>
            {deciding === "deny" ? <Loader2Icon className="animate-spin" /> : <XIcon />}
            Deny
          </Button>
          <Button size="sm" variant="outline" aria-expanded={teaching} disabled={deciding !== null} onClick={() => setTeaching((open) => !open)}>
            <ListChecksIcon />
            Always allow in this project
          </Button>
          <Button size="sm" data-approval-action="approve" disabled={deciding !== null} onClick={() => void decide("approve")}>
            {deciding === "approve" ? <Loader2Icon className="animate-spin" /> : <CheckIcon />}
            Approve once
          </Button>
        </div>
      </div>
      {teaching && <RememberRuleForm approval={approval} busy={deciding !== null} onCancel={() => setTeaching(false)} onAllow={(remember) => void decide("approve", remember)} />}
    </div>
  );
}

function ApprovalSummary({ approval }: { approval: Approval }) {
  const summary = describeToolInput(approval.toolName, approval.input);
  const machine = useApprovalMachine(approval.conversationId);
  return (
    <div className="flex min-w-0 flex-1 items-start gap-2 text-sm">
      <ShieldAlertIcon className="mt-0.5 size-4 shrink-0 text-warning-foreground" />
      <div className="min-w-0">
        <p className="font-medium">
          Allow <span className="font-mono">{approval.toolName}</span> to run{machine && <> on <span className="font-medium">{machine}</span></>}?
        </p>
        {summary && <p className="mt-0.5 truncate font-mono text-xs text-muted-foreground">{summary}</p>}
      </div>
    </div>
  );
}

/** Keyboard users go on from where they were: to the next pending approval on the page, else back to the composer. */
function focusAfterDecision(decidedId: string) {
  const next = Array.from(document.querySelectorAll<HTMLElement>("[data-approval-id]")).find((element) => element.dataset.approvalId !== decidedId);
  const target = next?.querySelector<HTMLElement>("[data-approval-action=approve]") ?? document.querySelector<HTMLElement>('textarea[aria-label="Message"]');
  target?.focus();
}
