"use client";

import { useVirtualizer, type Virtualizer } from "@tanstack/react-virtual";
import { ChevronUpIcon, Loader2Icon } from "lucide-react";
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { Objective } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { HistoryTail, type HistoryProps } from "./history";
import { EntryView, ForkNotice, historyEntries, type Entry, type EntryContext } from "./history-items";
import { useFindHighlight } from "./use-find-highlight";
import type { FindMatch } from "./use-find-hits";

/** Closer than this to either end of what is loaded, a scroll fetches the next page. */
const NEAR_END_PX = 1200;
/** Rows of the first paint, before the script runs: enough to fill a tall window. */
const FIRST_PAINT_ROWS = 10;

interface VirtualHistoryProps extends HistoryProps {
  scroller: RefObject<HTMLDivElement | null>;
  /** The conversation's latest objective: where it ended shows as a row after its last slice. */
  objective?: Objective | null;
  hasOlder: boolean;
  hasNewer: boolean;
  loadingOlder: boolean;
  onNearTop: () => void;
  onNearBottom: () => void;
  /** Scrolled to (centred) once it is among the rows; a new nonce scrolls again. */
  target: { itemId: string; nonce: number } | null;
  /** The current find match: its row is outlined, its match marked apart from the others, and a tool card holding it opened. */
  hit: FindMatch | null;
}

function estimateSize(entry: Entry | undefined): number {
  if (!entry || !("item" in entry)) return 40;
  const { item } = entry;
  if (item.kind === "user_message") return 64 + Math.min(400, (item.text?.length ?? 0) / 3);
  if (item.kind === "assistant_message") return 48 + Math.min(1200, (item.text?.length ?? 0) / 2.5);
  return 56;
}

/**
 * The conversation's loaded items as a virtual list: only the rows near the viewport are in
 * the DOM, each measured as it renders. Row 0 is the head (the start of the history, or the
 * way to earlier pages). A page put before the first row keeps what the reader sees in place.
 */
export function VirtualHistory(props: VirtualHistoryProps) {
  const { scroller, items, turns, approvals, questions, openTurn, hasOlder, hasNewer, target, hit } = props;
  const openTurnId = openTurn?.id ?? null;
  const objective = props.objective ?? null;
  const entries = useMemo(() => historyEntries(items, turns, openTurnId, objective), [items, turns, openTurnId, objective]);
  const approvalByItem = useMemo(() => new Map(Object.values(approvals).map((approval) => [approval.itemId, approval])), [approvals]);
  const questionByItem = useMemo(() => new Map(Object.values(questions).map((question) => [question.itemId, question])), [questions]);
  const context = { approvalByItem, questionByItem, restartingItemId: props.restartingItemId, onRestart: props.onRestart, revealedItemId: hit?.itemId ?? null };

  const edges = useRef({ onNearTop: props.onNearTop, onNearBottom: props.onNearBottom, hasOlder, hasNewer });
  edges.current = { onNearTop: props.onNearTop, onNearBottom: props.onNearBottom, hasOlder, hasNewer };

  const virtualizer = useVirtualizer<HTMLDivElement, HTMLDivElement>({
    count: entries.length + 1,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (index === 0 ? 72 : estimateSize(entries[index - 1])),
    getItemKey: (index) => (index === 0 ? "head" : entries[index - 1].key),
    overscan: 6,
    // Rows re-render with React's own batching, not a synchronous render inside each scroll event.
    useFlushSync: false,
    paddingStart: 24,
    // Opened at the latest messages: the first rows rendered are the last ones.
    initialOffset: () => Number.MAX_SAFE_INTEGER,
    onChange: (instance, scrolling) => {
      if (!scrolling) return;
      const offset = instance.scrollOffset ?? 0;
      const { onNearTop, onNearBottom, hasOlder: older, hasNewer: newer } = edges.current;
      if (older && offset < NEAR_END_PX) onNearTop();
      if (newer && offset + (instance.scrollRect?.height ?? 0) > instance.getTotalSize() - NEAR_END_PX) onNearBottom();
    },
  });

  useKeepRowsInPlace(entries, scroller, virtualizer);
  useScrollToTarget(target, entries, virtualizer);

  const rows = virtualizer.getVirtualItems();
  useFindHighlight(scroller, hit, rows);

  // The server's HTML (and the hydrating render) shows the last rows bottom-aligned in the viewport,
  // so the latest messages are on screen at first paint; the virtual list takes over once mounted.
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  if (!mounted) return <FirstPaint {...props} entries={entries} context={context} />;

  return (
    <>
      <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
        {rows.map((row) => {
          const entry = row.index === 0 ? null : entries[row.index - 1];
          const itemId = entry && "item" in entry ? entry.item.id : undefined;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full"
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <div
                className="mx-auto w-full max-w-3xl px-4 pb-5 md:px-6"
                data-item-id={itemId}
                data-search-hit={hit && itemId === hit.itemId ? "" : undefined}
              >
                {entry ? (
                  <EntryView entry={entry} context={context} />
                ) : (
                  <HistoryHead {...props} empty={entries.length === 0} onShowEarlier={props.onNearTop} />
                )}
              </div>
            </div>
          );
        })}
      </div>
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-5 px-4 pb-4 empty:hidden md:px-6">
        {!hasNewer && <HistoryTail items={items} approvals={approvals} questions={questions} openTurn={openTurn} retry={props.retry} />}
      </div>
    </>
  );
}

type HistoryVirtualizer = Virtualizer<HTMLDivElement, HTMLDivElement>;

/** A page put before the rows: move the scroll down by what was added, so the same row stays where it was. */
function useKeepRowsInPlace(entries: Entry[], scroller: RefObject<HTMLDivElement | null>, virtualizer: HistoryVirtualizer) {
  const firstKey = useRef<string | null>(null);
  useLayoutEffect(() => {
    const previous = firstKey.current;
    firstKey.current = entries[0]?.key ?? null;
    const element = scroller.current;
    if (!previous || !element || entries[0]?.key === previous) return;
    const index = entries.findIndex((entry) => entry.key === previous);
    if (index <= 0) return;
    const measurements = virtualizer.measurementsCache;
    const added = measurements[index + 1].start - measurements[1].start;
    element.scrollTop += added;
  }, [entries, scroller, virtualizer]);
}

/** Centres the target's row once it is among the entries, once per nonce. */
function useScrollToTarget(target: VirtualHistoryProps["target"], entries: Entry[], virtualizer: HistoryVirtualizer) {
  const done = useRef<number | null>(null);
  useEffect(() => {
    if (!target || done.current === target.nonce) return;
    const index = entries.findIndex((entry) => "item" in entry && entry.item.id === target.itemId);
    if (index === -1) return;
    done.current = target.nonce;
    virtualizer.scrollToIndex(index + 1, { align: "center" });
  }, [target, entries, virtualizer]);
}

/** The server's HTML and the hydrating render: the last rows, bottom-aligned in the viewport. */
function FirstPaint(props: VirtualHistoryProps & { entries: Entry[]; context: EntryContext }) {
  const { entries, context } = props;
  return (
    <div className="absolute inset-0 flex flex-col justify-end overflow-hidden" data-first-paint="">
      {entries.slice(-FIRST_PAINT_ROWS).map((entry) => (
        <div key={entry.key} className="mx-auto w-full max-w-3xl shrink-0 px-4 pb-5 md:px-6" data-item-id={"item" in entry ? entry.item.id : undefined}>
          <EntryView entry={entry} context={context} />
        </div>
      ))}
      {entries.length === 0 && <HistoryHead {...props} empty onShowEarlier={props.onNearTop} />}
    </div>
  );
}

/**
 * The way to earlier pages. Within NEAR_END_PX of the view it asks for the next page by itself,
 * each time it appears (a new observer reports where it is at once): a page that lands while
 * the reader is at the very top brings no scroll event to ask with.
 */
function ShowEarlierButton({ scroller, onShowEarlier }: { scroller: RefObject<HTMLDivElement | null>; onShowEarlier: () => void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = button.current;
    const root = scroller.current;
    if (!element || !root) return;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && onShowEarlier(), {
      root,
      rootMargin: `${NEAR_END_PX}px 0px 0px 0px`,
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [scroller, onShowEarlier]);
  return (
    <Button ref={button} variant="ghost" size="sm" className="text-muted-foreground" onClick={onShowEarlier}>
      <ChevronUpIcon />
      Show earlier messages
    </Button>
  );
}

function HistoryHead({
  scroller,
  hasOlder,
  loadingOlder,
  forkedFrom,
  openTurn,
  empty,
  onShowEarlier,
}: VirtualHistoryProps & { empty: boolean; onShowEarlier: () => void }) {
  if (hasOlder) {
    return (
      <div className="flex justify-center">
        {loadingOlder ? (
          <span role="status" className="flex h-8 items-center gap-2 text-sm text-muted-foreground">
            <Loader2Icon className="size-4 animate-spin" />
            Loading earlier messages…
          </span>
        ) : (
          <ShowEarlierButton scroller={scroller} onShowEarlier={onShowEarlier} />
        )}
      </div>
    );
  }
  if (forkedFrom) return <ForkNotice forkedFrom={forkedFrom} />;
  if (empty && !openTurn) return <p className="py-16 text-center text-sm text-muted-foreground">No messages yet. Say something below.</p>;
  return null;
}
