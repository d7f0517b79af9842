"use client";

import { CheckCircle2Icon, ExternalLinkIcon, MonitorIcon, ShieldCheckIcon, XCircleIcon } from "lucide-react";
import Link from "next/link";
import type { Approval } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { ApprovalPrompt } from "@/components/chat/approval-prompt";
import { PageHeader } from "@/components/sidebar/page-header";
import { describeToolInput, relativeTime } from "@/components/shared/format";
import { useApprovals } from "./use-approvals";
import { useMachines } from "@/components/machines/use-machines";
import { LOCAL_MACHINE_ID, type Machine } from "@/lib/machines/machine-schema";

const DECIDED_SHOWN = 50;

function newestFirst(a: Approval, b: Approval): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
}

/** Every conversation's tool approvals, live: pending first, then the latest decisions. */
export function ApprovalsList({
  initialApprovals,
  initialTitles,
  initialMachineOf,
  initialMachines,
}: {
  initialApprovals: Approval[];
  initialTitles: Record<string, string>;
  /** Each conversation's machine id. */
  initialMachineOf: Record<string, string>;
  initialMachines: Machine[];
}) {
  const { approvals, titles, machineOf } = useApprovals({ approvals: initialApprovals, titles: initialTitles, machineOf: initialMachineOf });
  const { machines } = useMachines(initialMachines);
  // Only a linked machine is named: on `local` the call runs where Atrium does, as everywhere else.
  const machineName = (conversationId: string): string | null => {
    const id = machineOf[conversationId];
    if (!id || id === LOCAL_MACHINE_ID) return null;
    return machines.find((machine) => machine.id === id)?.name ?? id;
  };

  const pending = approvals.filter((approval) => approval.status === "pending").sort(newestFirst);
  const decided = approvals
    .filter((approval) => approval.status !== "pending")
    .sort((a, b) => ((a.decidedAt ?? "") < (b.decidedAt ?? "") ? 1 : -1))
    .slice(0, DECIDED_SHOWN);

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader title="Approvals" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto grid w-full max-w-3xl gap-8 px-4 py-6 md:px-6">
          <section aria-labelledby="pending-heading" className="grid gap-3">
            <div className="flex items-baseline justify-between">
              <h2 id="pending-heading" className="text-lg font-semibold tracking-tight">
                Waiting for you
              </h2>
              <span className="text-sm text-muted-foreground">{pending.length} pending</span>
            </div>
            {pending.length === 0 ? (
              <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed px-4 py-10 text-center text-sm text-muted-foreground">
                <ShieldCheckIcon className="size-6" />
                Nothing needs your approval right now.
              </div>
            ) : (
              <ul className="grid gap-3">
                {pending.map((approval) => (
                  <li key={approval.id} className="grid gap-2 rounded-xl border bg-card p-3 shadow-xs">
                    <ConversationLine approval={approval} title={titles[approval.conversationId]} machine={machineName(approval.conversationId)} />
                    <ApprovalPrompt approval={approval} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <DecidedList decided={decided} titles={titles} machineName={machineName} />
        </div>
      </div>
    </div>
  );
}

/** The latest decisions, newest first, each with its machine when that is a linked one. */
function DecidedList({ decided, titles, machineName }: { decided: Approval[]; titles: Record<string, string>; machineName(conversationId: string): string | null }) {
  if (decided.length === 0) return null;
  return (
    <section aria-labelledby="decided-heading" className="grid gap-3">
      <h2 id="decided-heading" className="text-sm font-medium text-muted-foreground">
        Recently decided
      </h2>
      <ul className="divide-y rounded-xl border bg-card">
        {decided.map((approval) => (
          <li key={approval.id} className="flex items-center gap-3 px-3 py-2 text-sm">
            {approval.status === "approved" ? (
              <Badge variant="success">
                <CheckCircle2Icon />
                approved
              </Badge>
            ) : (
              <Badge variant="destructive">
                <XCircleIcon />
                denied
              </Badge>
            )}
            <code className="min-w-0 flex-1 truncate font-mono text-xs">
              {approval.toolName} {describeToolInput(approval.toolName, approval.input)}
            </code>
            <MachineName name={machineName(approval.conversationId)} />
            <Link href={`/c/${approval.conversationId}`} prefetch={false} className="hidden max-w-[30%] truncate text-xs text-muted-foreground hover:underline sm:block">
              {titles[approval.conversationId] ?? "Conversation"}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function MachineName({ name }: { name: string | null }) {
  if (!name) return null;
  return (
    <span className="flex shrink-0 items-center gap-1 text-xs text-muted-foreground" title={`Runs on the machine ${name}`}>
      <MonitorIcon className="size-3" aria-hidden />
      <span>on {name}</span>
    </span>
  );
}

function ConversationLine({ approval, title, machine }: { approval: Approval; title: string | undefined; machine: string | null }) {
  return (
    <div className="flex items-center gap-2 text-xs text-muted-foreground">
      <Link href={`/c/${approval.conversationId}`} prefetch={false} className="flex min-w-0 items-center gap-1 font-medium text-foreground hover:underline">
        <span className="truncate">{title ?? "Conversation"}</span>
        <ExternalLinkIcon className="size-3 shrink-0" />
      </Link>
      <span aria-hidden>·</span>
      <time dateTime={approval.createdAt} suppressHydrationWarning>
        {relativeTime(approval.createdAt)}
      </time>
      {machine && (
        <>
          <span aria-hidden>·</span>
          <MachineName name={machine} />
        </>
      )}
    </div>
  );
}
