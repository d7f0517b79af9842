"use client";

import { ArchiveRestoreIcon, ChevronUpIcon, GitForkIcon } from "lucide-react";
import Link from "next/link";
import { useMemo, useState } from "react";
import type { Approval, Item, Question, Turn } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { SubagentReport } from "@/components/agents/subagent-report";
import { TurnChangesLine } from "@/components/checkpoints/turn-changes-line";
import { AssistantMessage } from "./assistant-message";
import type { RetryNotice as RetryNoticeState } from "./conversation-state";
import { Markdown } from "./markdown";
import { NoticeLine } from "./notice-line";
import { ReasoningBlock } from "./reasoning-block";
import { RetryNotice } from "./retry-notice";
import { ToolCallCard } from "./tool-call-card";
import { TurnActivity } from "./turn-activity";
import { TurnError } from "./turn-error";
import { UserMessage } from "./user-message";

/** Older entries are revealed a page at a time so long histories stay quick to render. */
const PAGE = 150;

interface HistoryProps {
  items: Item[];
  turns: Record<string, Turn>;
  approvals: Record<string, Approval>;
  questions: Record<string, Question>;
  openTurn: Turn | null;
  retry: RetryNoticeState | null;
  forkedFrom: { conversationId: string; parent: { id: string; title: string } | null } | null;
  restartingItemId: string | null;
  onRestart: (item: Item) => void;
}

type Entry = { key: string; item: Item } | { key: string; failedTurn: Turn } | { key: string; changesOfTurn: string };

/** Tools whose steps are checkpointed (lib/engine/checkpoint-hooks.ts). */
function changesFiles(item: Item): boolean {
  const name = item.toolName ?? "";
  return item.kind === "tool_call" && (name === "shell" || name === "write_file" || name === "edit_file" || name.startsWith("mcp__"));
}

export function History({ items, turns, approvals, questions, openTurn, retry, forkedFrom, restartingItemId, onRestart }: HistoryProps) {
  const [shown, setShown] = useState(PAGE);
  const openTurnId = openTurn?.id ?? null;

  const entries = useMemo(() => {
    const lastItemOfTurn = new Map<string, string>();
    for (const item of items) if (item.turnId) lastItemOfTurn.set(item.turnId, item.id);
    const changingTurns = new Set(items.filter(changesFiles).map((item) => item.turnId));
    const list: Entry[] = [];
    for (const item of items) {
      list.push({ key: item.id, item });
      const turn = item.turnId ? turns[item.turnId] : undefined;
      const last = item.turnId !== null && lastItemOfTurn.get(item.turnId) === item.id;
      if (turn?.status === "failed" && last) list.push({ key: `error-${turn.id}`, failedTurn: turn });
      if (last && item.turnId && changingTurns.has(item.turnId) && item.turnId !== openTurnId) {
        list.push({ key: `changes-${item.turnId}`, changesOfTurn: item.turnId });
      }
    }
    return list;
  }, [items, turns, openTurnId]);

  const approvalByItem = useMemo(() => new Map(Object.values(approvals).map((approval) => [approval.itemId, approval])), [approvals]);
  const questionByItem = useMemo(() => new Map(Object.values(questions).map((question) => [question.itemId, question])), [questions]);

  const hidden = Math.max(0, entries.length - shown);
  const visible = hidden > 0 ? entries.slice(hidden) : entries;
  const streamingInOpenTurn = openTurn ? items.some((item) => item.turnId === openTurn.id && item.status === "streaming") : false;
  const orphanApprovals = Object.values(approvals).filter((approval) => !items.some((item) => item.id === approval.itemId));
  const orphanQuestions = Object.values(questions).filter((question) => !items.some((item) => item.id === question.itemId));

  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-5 px-4 pt-6 pb-4 md:px-6">
      {forkedFrom && <ForkNotice forkedFrom={forkedFrom} />}
      {hidden > 0 && (
        <Button variant="ghost" size="sm" className="self-center text-muted-foreground" onClick={() => setShown((count) => count + PAGE)}>
          <ChevronUpIcon />
          Show earlier messages ({hidden})
        </Button>
      )}
      {visible.length === 0 && !openTurn && (
        <p className="py-16 text-center text-sm text-muted-foreground">No messages yet. Say something below.</p>
      )}
      {visible.map((entry) => (
        <div key={entry.key} className="history-entry" data-item-id={"item" in entry ? entry.item.id : undefined}>
          {"failedTurn" in entry ? (
            <TurnError turn={entry.failedTurn} />
          ) : "changesOfTurn" in entry ? (
            <TurnChangesLine turnId={entry.changesOfTurn} />
          ) : (
            <ItemView
              item={entry.item}
              approval={approvalByItem.get(entry.item.id)}
              question={questionByItem.get(entry.item.id)}
              restarting={restartingItemId === entry.item.id}
              onRestart={onRestart}
            />
          )}
        </div>
      ))}
      {orphanApprovals.map((approval) => (
        <ToolCallCard key={approval.id} item={placeholderItem(approval.itemId, approval.toolName, approval.input)} approval={approval} question={undefined} />
      ))}
      {orphanQuestions.map((question) => (
        <ToolCallCard key={question.id} item={placeholderItem(question.itemId, "ask_user", { question: question.question })} approval={undefined} question={question} />
      ))}
      {retry && openTurn?.id === retry.turnId && <RetryNotice retry={retry} />}
      {openTurn && !streamingInOpenTurn && !retry && <TurnActivity turn={openTurn} />}
    </div>
  );
}

function placeholderItem(id: string, toolName: string, input: unknown): Item {
  return { id, seq: 0, sessionId: "", turnId: null, kind: "tool_call", status: "waiting", toolName, input, createdAt: "" };
}

function ItemView({
  item,
  approval,
  question,
  restarting,
  onRestart,
}: {
  item: Item;
  approval: Approval | undefined;
  question: Question | undefined;
  restarting: boolean;
  onRestart: (item: Item) => void;
}) {
  switch (item.kind) {
    case "user_message":
      return <UserMessage item={item} onRestart={onRestart} restarting={restarting} />;
    case "assistant_message":
      return <AssistantMessage item={item} />;
    case "reasoning":
      return <ReasoningBlock item={item} />;
    case "tool_call":
      return <ToolCallCard item={item} approval={approval} question={question} />;
    case "notice":
      return <NoticeLine item={item} />;
    case "compaction_summary":
      return (
        <Collapsible className="group/summary rounded-lg border border-dashed">
          <CollapsibleTrigger className="flex w-full items-center gap-2 px-3 py-2 text-left text-sm text-muted-foreground">
            <ArchiveRestoreIcon className="size-4" />
            Context compacted: older history is summarized for the model
            <span className="ml-auto text-xs group-data-[state=open]/summary:hidden">Show summary</span>
          </CollapsibleTrigger>
          <CollapsibleContent className="border-t px-3 py-2 text-sm">
            <Markdown text={item.text ?? ""} />
          </CollapsibleContent>
        </Collapsible>
      );
    case "subagent_report":
      return <SubagentReport item={item} />;
    default:
      return null;
  }
}

function ForkNotice({ forkedFrom }: { forkedFrom: { conversationId: string; parent: { id: string; title: string } | null } }) {
  return (
    <div role="note" className="flex items-start gap-2 rounded-lg border border-dashed px-3 py-2 text-sm text-muted-foreground">
      <GitForkIcon className="mt-0.5 size-4 shrink-0" />
      {forkedFrom.parent ? (
        <p>
          Forked from{" "}
          <Link href={`/c/${forkedFrom.parent.id}`} prefetch={false} className="font-medium text-foreground underline underline-offset-2">
            {forkedFrom.parent.title}
          </Link>
          . The original is unchanged.
        </p>
      ) : (
        <p>
          Forked from a conversation that is not on this machine (<span className="font-mono text-xs">{forkedFrom.conversationId}</span>). Any older
          history kept only there cannot be shown.
        </p>
      )}
    </div>
  );
}
