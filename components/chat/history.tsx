"use client";

import { ChevronUpIcon } from "lucide-react";
import { useMemo, useState } from "react";
import type { Approval, Item, Question, Turn } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { ToolCallCard } from "./tool-call-card";
import type { RetryNotice as RetryNoticeState } from "./conversation-state";
import { SubagentApprovalLabel } from "@/components/agents/subagent-approval-label";
import { EntryView, ForkNotice, historyEntries, placeholderItem } from "./history-items";
import { RetryNotice } from "./retry-notice";
import { TurnActivity } from "./turn-activity";

/** Older entries are revealed a page at a time so long histories stay quick to render. */
const PAGE = 150;

export interface HistoryProps {
  items: Item[];
  turns: Record<string, Turn>;
  approvals: Record<string, Approval>;
  questions: Record<string, Question>;
  openTurn: Turn | null;
  retry: RetryNoticeState | null;
  forkedFrom: { conversationId: string; parent: { id: string; title: string } | null; restart?: boolean } | null;
  restartingItemId: string | null;
  onRestart: (item: Item) => void;
}

/** A session's whole history in one column (a subagent's, in the agents panel); the conversation view uses VirtualHistory. */
export function History({ items, turns, approvals, questions, openTurn, retry, forkedFrom, restartingItemId, onRestart }: HistoryProps) {
  const [shown, setShown] = useState(PAGE);
  const openTurnId = openTurn?.id ?? null;
  const entries = useMemo(() => historyEntries(items, turns, openTurnId), [items, turns, openTurnId]);
  const approvalByItem = useMemo(() => new Map(Object.values(approvals).map((approval) => [approval.itemId, approval])), [approvals]);
  const questionByItem = useMemo(() => new Map(Object.values(questions).map((question) => [question.itemId, question])), [questions]);
  const context = { approvalByItem, questionByItem, restartingItemId, onRestart };

  const hidden = Math.max(0, entries.length - shown);
  const visible = hidden > 0 ? entries.slice(hidden) : entries;
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
        <div key={entry.key} data-item-id={"item" in entry ? entry.item.id : undefined}>
          <EntryView entry={entry} context={context} />
        </div>
      ))}
      <HistoryTail items={items} approvals={approvals} questions={questions} openTurn={openTurn} retry={retry} />
    </div>
  );
}

/** What follows the last entry: approvals and questions whose item is not (yet) here, the retry notice, the turn's activity. */
export function HistoryTail({
  items,
  approvals,
  questions,
  openTurn,
  retry,
}: Pick<HistoryProps, "items" | "approvals" | "questions" | "openTurn" | "retry">) {
  const streamingInOpenTurn = openTurn ? items.some((item) => item.turnId === openTurn.id && item.status === "streaming") : false;
  const known = new Set(items.map((item) => item.id));
  const orphanApprovals = Object.values(approvals).filter((approval) => !known.has(approval.itemId));
  const orphanQuestions = Object.values(questions).filter((question) => !known.has(question.itemId));
  return (
    <>
      {orphanApprovals.map((approval) => (
        <div key={approval.id} className="grid gap-1">
          <SubagentApprovalLabel approval={approval} />
          <ToolCallCard item={placeholderItem(approval.itemId, approval.toolName, approval.input)} approval={approval} question={undefined} />
        </div>
      ))}
      {orphanQuestions.map((question) => (
        <ToolCallCard key={question.id} item={placeholderItem(question.itemId, "ask_user", { question: question.question })} approval={undefined} question={question} />
      ))}
      {retry && openTurn?.id === retry.turnId && <RetryNotice retry={retry} />}
      {openTurn && !streamingInOpenTurn && !retry && <TurnActivity turn={openTurn} />}
    </>
  );
}
