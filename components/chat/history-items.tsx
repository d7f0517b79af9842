"use client";

import { ArchiveRestoreIcon, GitForkIcon, RotateCcwIcon } from "lucide-react";
import Link from "next/link";
import type { Approval, Item, Objective, Question, Turn } from "@/lib/events/entities";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { SubagentReport } from "@/components/agents/subagent-report";
import { TurnChangesLine } from "@/components/checkpoints/turn-changes-line";
import { AssistantMessage } from "./assistant-message";
import { Markdown } from "./markdown";
import { NoticeLine } from "./notice-line";
import { isFirstSlice, ObjectiveEndRow, SliceMarker } from "./objective-rows";
import { ReasoningBlock } from "./reasoning-block";
import { ToolCallCard } from "./tool-call-card";
import { TurnError } from "./turn-error";
import { UserMessage } from "./user-message";

/** One row of the history: an item, a failed turn's error after its last item, or a turn's file changes. */
export type Entry =
  | { key: string; item: Item; slice?: { number: number | null; limit: number | null; openedRow: boolean } }
  | { key: string; failedTurn: Turn }
  | { key: string; changesOfTurn: string }
  | { key: string; objectiveEnd: Objective };

/** Tools whose steps are checkpointed (lib/engine/checkpoint-hooks.ts). */
function changesFiles(item: Item): boolean {
  const name = item.toolName ?? "";
  return item.kind === "tool_call" && (name === "shell" || name === "write_file" || name === "edit_file" || name.startsWith("mcp__"));
}

/** Slices are numbered from their objective's first slice in the loaded window (unknown when it is not loaded). */
function sliceNumbers(items: Item[]): Map<string, number | null> {
  const numbers = new Map<string, number | null>();
  let current: number | null = null;
  for (const item of items) {
    if (item.kind !== "user_message" || item.origin !== "objective") continue;
    current = isFirstSlice(item) ? 1 : current === null ? null : current + 1;
    numbers.set(item.id, current);
  }
  return numbers;
}

export function historyEntries(items: Item[], turns: Record<string, Turn>, openTurnId: string | null, objective: Objective | null = null): Entry[] {
  const lastItemOfTurn = new Map<string, string>();
  for (const item of items) if (item.turnId) lastItemOfTurn.set(item.turnId, item.id);
  const changingTurns = new Set(items.filter(changesFiles).map((item) => item.turnId));
  const slices = sliceNumbers(items);
  const lastSlice = [...slices.keys()].at(-1);
  const lastSliceTurn = items.find((item) => item.id === lastSlice)?.turnId ?? null;
  const noticed = items.some((item) => item.kind === "notice" && item.origin === "objective");
  // Objectives opened since "Objective opened" became a notice have that row; older ones say it on their first slice.
  const openedRow = items.some((item) => item.kind === "notice" && item.origin === "objective" && (item.text ?? "").startsWith("Objective opened"));
  const list: Entry[] = [];
  for (const item of items) {
    const slice = slices.has(item.id) ? { number: slices.get(item.id) ?? null, limit: objective?.sliceLimit ?? null, openedRow } : undefined;
    list.push({ key: item.id, item, ...(slice ? { slice } : {}) });
    const turn = item.turnId ? turns[item.turnId] : undefined;
    const last = item.turnId !== null && lastItemOfTurn.get(item.turnId) === item.id;
    if (turn?.status === "failed" && last) list.push({ key: `error-${turn.id}`, failedTurn: turn });
    if (last && item.turnId && changingTurns.has(item.turnId) && item.turnId !== openTurnId) {
      list.push({ key: `changes-${item.turnId}`, changesOfTurn: item.turnId });
    }
    // Objectives changed since their notices were recorded have rows of their own; older ones get the row from the objective's state.
    const endsObjective = !noticed && objective && objective.status !== "open" && (lastSliceTurn ? last && item.turnId === lastSliceTurn && item.turnId !== openTurnId : item.id === lastSlice);
    if (endsObjective) list.push({ key: `objective-${objective.id}`, objectiveEnd: objective });
  }
  return list;
}

export interface EntryContext {
  approvalByItem: Map<string, Approval>;
  questionByItem: Map<string, Question>;
  restartingItemId: string | null;
  onRestart: (item: Item) => void;
  /** A find match is in this item: a collapsed tool card opens to show it. */
  revealedItemId?: string | null;
}

export function EntryView({ entry, context }: { entry: Entry; context: EntryContext }) {
  if ("failedTurn" in entry) return <TurnError turn={entry.failedTurn} />;
  if ("changesOfTurn" in entry) return <TurnChangesLine turnId={entry.changesOfTurn} />;
  if ("objectiveEnd" in entry) return <ObjectiveEndRow objective={entry.objectiveEnd} />;
  if (entry.slice) return <SliceMarker item={entry.item} slice={entry.slice.number} sliceLimit={entry.slice.limit} openedRow={entry.slice.openedRow} />;
  return (
    <ItemView
      item={entry.item}
      approval={context.approvalByItem.get(entry.item.id)}
      question={context.questionByItem.get(entry.item.id)}
      restarting={context.restartingItemId === entry.item.id}
      onRestart={context.onRestart}
      revealed={context.revealedItemId === entry.item.id}
    />
  );
}

export function placeholderItem(id: string, toolName: string, input: unknown): Item {
  return { id, seq: 0, sessionId: "", turnId: null, kind: "tool_call", status: "waiting", toolName, input, createdAt: "" };
}

export function ItemView({
  item,
  approval,
  question,
  restarting,
  onRestart,
  revealed = false,
}: {
  item: Item;
  revealed?: boolean;
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
      return <ToolCallCard item={item} approval={approval} question={question} revealed={revealed} />;
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

export function ForkNotice({ forkedFrom }: { forkedFrom: { conversationId: string; parent: { id: string; title: string } | null; restart?: boolean } }) {
  return (
    <div role="note" className="flex items-start gap-2 rounded-lg border border-dashed px-3 py-2 text-sm text-muted-foreground">
      {forkedFrom.restart ? <RotateCcwIcon className="mt-0.5 size-4 shrink-0" /> : <GitForkIcon className="mt-0.5 size-4 shrink-0" />}
      {forkedFrom.parent ? (
        <p>
          {forkedFrom.restart ? "Restarted from" : "Forked from"}{" "}
          <Link href={`/c/${forkedFrom.parent.id}`} prefetch={false} className="font-medium text-foreground underline underline-offset-2">
            {forkedFrom.parent.title}
          </Link>
          . The original is unchanged.
        </p>
      ) : (
        <p>
          {forkedFrom.restart ? "Restarted" : "Forked"} from a conversation that is not on this machine (<span className="font-mono text-xs">{forkedFrom.conversationId}</span>). Any older
          history kept only there cannot be shown.
        </p>
      )}
    </div>
  );
}
