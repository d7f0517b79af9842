"use client";

import { Loader2Icon } from "lucide-react";
import { Popover } from "radix-ui";
import { toast } from "sonner";
import type { ContextInfo } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { basisExplanation, basisLabel, compactionExplanation, contextFigures, type ContextTone } from "./context-figures";
import { useContextInfo } from "./use-context-info";

const number = new Intl.NumberFormat("en-US");
export function formatTokens(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(value >= 10_000_000 ? 0 : 1)}M`;
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 100_000 ? 0 : 1)}k`;
  return String(value);
}

/** Asks the conversation view to bring an item it has not rendered into view (its history is virtual and paged). */
export const SHOW_ITEM_EVENT = "atrium:show-item";

/** Scrolls the history to an item and briefly highlights it. */
export function scrollToItem(itemId: string): boolean {
  const element = document.querySelector(`[data-item-id="${CSS.escape(itemId)}"]`);
  if (!element) return window.dispatchEvent(new CustomEvent(SHOW_ITEM_EVENT, { detail: { itemId }, cancelable: true })) === false;
  element.scrollIntoView({ behavior: "smooth", block: "center" });
  element.classList.add("ring-2", "ring-ring", "rounded-lg");
  window.setTimeout(() => element.classList.remove("ring-2", "ring-ring", "rounded-lg"), 1600);
  return true;
}

/**
 * The context ring in the conversation header (DESIGN §4): how full the model's context is,
 * with the details and a "Compact now" button in a popover. Live through `context.updated`.
 */
export function ContextRing({ conversationId, sessionId }: { conversationId: string; sessionId: string }) {
  const { context, busy, compact } = useContextInfo(conversationId, sessionId);
  if (!context) return null;
  const figures = contextFigures(context);
  const label = `Context: ${figures.percent}% used, ${formatTokens(context.roomTokens)} tokens of room left`;

  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <Button variant="ghost" size="sm" className="gap-1 px-1.5" aria-label={label} title={label} data-testid="context-ring" data-tone={figures.tone}>
          <RingGauge fraction={figures.fraction} tone={figures.tone} />
          <span data-testid="context-percent" className={`text-xs font-medium tabular-nums ${figures.tone === "normal" ? "text-muted-foreground" : TONE_CLASS[figures.tone]}`} aria-hidden>
            {figures.percent}%
          </span>
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={6}
          aria-label="Context usage"
          className="z-50 w-80 rounded-lg border bg-popover p-3 text-sm text-popover-foreground shadow-md outline-none"
        >
          <p className="mb-2 font-medium">Context</p>
          <ContextFigures context={context} percent={figures.percent} thresholdPercent={figures.thresholdPercent} />
          <LastCompaction context={context} />
          <Button size="sm" variant="outline" className="mt-3 w-full" disabled={busy} onClick={() => void compact()}>
            {busy && <Loader2Icon className="animate-spin" />}
            {busy ? "Compacting…" : "Compact now"}
          </Button>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

const RING_RADIUS = 7;

function RingGauge({ fraction, tone }: { fraction: number; tone: ContextTone }) {
  const circumference = 2 * Math.PI * RING_RADIUS;
  return (
    <svg viewBox="0 0 18 18" className="size-5 -rotate-90" aria-hidden>
      <circle cx="9" cy="9" r={RING_RADIUS} fill="none" strokeWidth="3" className="stroke-muted-foreground/25" />
      <circle
        cx="9"
        cy="9"
        r={RING_RADIUS}
        fill="none"
        strokeWidth="3"
        strokeLinecap="round"
        stroke="currentColor"
        className={`${TONE_CLASS[tone]} transition-[stroke-dashoffset]`}
        strokeDasharray={circumference}
        strokeDashoffset={circumference * (1 - fraction)}
      />
    </svg>
  );
}

function ContextFigures({ context, percent, thresholdPercent }: { context: ContextInfo; percent: number; thresholdPercent: number }) {
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 [&_dt]:whitespace-nowrap">
      <dt className="text-muted-foreground">In context now</dt>
      <dd data-testid="context-used" className="text-right tabular-nums">
        {number.format(context.usedTokens)} ({percent}%)
      </dd>
      <dt className="text-muted-foreground">Room left</dt>
      <dd data-testid="context-room" className="text-right tabular-nums">
        {number.format(context.roomTokens)}
      </dd>
      <dt className="text-muted-foreground">Context window</dt>
      <dd className="text-right tabular-nums">{number.format(context.contextWindow)}</dd>
      <dt className="text-muted-foreground">Compacts at</dt>
      <dd data-testid="context-threshold" className="text-right tabular-nums">
        {number.format(context.threshold)} ({thresholdPercent}%)
      </dd>
      <dt className="text-muted-foreground" title="Every model call of this conversation added up; each call resends the context">
        All calls so far
      </dt>
      <dd data-testid="context-total" className="text-right tabular-nums">
        {number.format(context.totalTokens.input)} in · {number.format(context.totalTokens.output)} out
      </dd>
      {context.catalogTokens && (
        <>
          <dt className="text-muted-foreground">Catalog tokens</dt>
          <dd data-testid="context-catalogs" className="text-right tabular-nums">
            skills {number.format(context.catalogTokens.skills)} · tools {number.format(context.catalogTokens.tools)}
          </dd>
        </>
      )}
      <dt className="text-muted-foreground">Figures</dt>
      <dd className="text-right" data-testid="context-basis" title={basisExplanation(context)}>
        {basisLabel(context)}
      </dd>
      <dd className="col-span-2 text-xs text-muted-foreground" data-testid="context-basis-why">
        {basisExplanation(context)}
      </dd>
      {context.reasoningContext && (
        <>
          <dt className="text-muted-foreground">Reasoning context</dt>
          <dd className="text-right">
            {reasoningLabel(context.reasoningContext.configured)}
            {context.reasoningContext.applied && context.reasoningContext.applied !== context.reasoningContext.configured
              ? ` (applied: ${reasoningLabel(context.reasoningContext.applied)})`
              : ""}
          </dd>
        </>
      )}
    </dl>
  );
}

function LastCompaction({ context }: { context: ContextInfo }) {
  const last = context.lastCompaction;
  return (
    <div className="mt-2 border-t pt-2 text-xs text-muted-foreground" data-testid="context-last-compaction">
      {last ? (
        <p>
          Last compacted {new Date(last.at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" })}: {compactionFigures(last)} tokens.{" "}
          <span data-testid="context-compaction-why">{compactionExplanation(context)}</span>{" "}
          <Popover.Close asChild>
            <button
              type="button"
              className="font-medium text-foreground underline underline-offset-2"
              onClick={() => {
                if (!scrollToItem(last.itemId)) toast.info("The summary is further up: show earlier messages to see it");
              }}
            >
              Show the summary
            </button>
          </Popover.Close>
        </p>
      ) : (
        <p>Not compacted yet. Compaction starts by itself near {formatTokens(context.threshold)} tokens.</p>
      )}
    </div>
  );
}

const TONE_CLASS: Record<ContextTone, string> = {
  normal: "text-info",
  near: "text-warning-foreground",
  at: "text-destructive",
};

/** "14.0k → 14.0k" hid the change: when the short forms are equal, the exact counts are shown. */
function compactionFigures(last: { tokensBefore: number; tokensAfter: number }): string {
  const before = formatTokens(last.tokensBefore);
  const after = formatTokens(last.tokensAfter);
  return before === after ? `${number.format(last.tokensBefore)} → ${number.format(last.tokensAfter)}` : `${before} → ${after}`;
}

function reasoningLabel(mode: "all_turns" | "current_turn"): string {
  return mode === "all_turns" ? "all turns" : "current turn only";
}
