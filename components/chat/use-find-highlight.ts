"use client";

import { useEffect, useRef, type RefObject } from "react";
import { matchRanges } from "@/lib/store/find-text";
import type { FindMatch } from "./use-find-hits";

const ALL = "atrium-find";
const CURRENT = "atrium-find-current";

const supported = () => typeof CSS !== "undefined" && "highlights" in CSS && typeof Highlight === "function";

/** The ranges of the needle in what find searches of a row: its `[data-find-text]` parts, else the row. */
function rangesIn(row: Element, needle: string): Range[] {
  const scopes = row.querySelectorAll("[data-find-text]");
  const ranges: Range[] = [];
  for (const scope of scopes.length > 0 ? [...scopes] : [row]) {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const [start, end] of matchRanges(node.textContent ?? "", needle)) {
        const range = new Range();
        range.setStart(node, start);
        range.setEnd(node, end);
        ranges.push(range);
      }
    }
  }
  return ranges;
}

function centre(range: Range, box: HTMLElement): void {
  const target = range.getBoundingClientRect();
  const frame = box.getBoundingClientRect();
  if (target.top < frame.top + 8 || target.bottom > frame.bottom - 8) box.scrollTop += target.top - (frame.top + frame.height / 2 - target.height / 2);
}

/**
 * Scrolls the boxes inside the row (a tool's output) so the range shows; the history itself is
 * left to the virtual list, which centres the row, unless the row is taller than the view.
 * True once the range is in view.
 */
function bringIntoView(range: Range, row: HTMLElement, scroller: HTMLElement): boolean {
  for (let box = range.startContainer.parentElement; box && box !== row; box = box.parentElement) {
    if (box.scrollHeight > box.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(box).overflowY)) centre(range, box);
  }
  if (row.getBoundingClientRect().height > scroller.clientHeight) centre(range, scroller);
  const target = range.getBoundingClientRect();
  const frame = scroller.getBoundingClientRect();
  return target.height > 0 && target.top >= frame.top && target.bottom <= frame.bottom;
}

/**
 * Marks every match in the rendered rows of the hits, and the current one apart, with the CSS
 * Custom Highlight API so the rendered markdown is left as it is. Rows come and go as the list
 * scrolls: the marks are laid again whenever the rendered rows change. The current match is
 * brought into view once per jump, inside a long message or a tool's scrolling output too.
 */
export function useFindHighlight(scroller: RefObject<HTMLElement | null>, match: FindMatch | null, rows: unknown[]): void {
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (!supported()) return;
    CSS.highlights.delete(ALL);
    CSS.highlights.delete(CURRENT);
    const container = scroller.current;
    if (!match || !container) return;
    const others: Range[] = [];
    let current: Range | null = null;
    let currentRow: HTMLElement | null = null;
    for (const row of container.querySelectorAll<HTMLElement>("[data-item-id]")) {
      const itemId = row.dataset.itemId ?? "";
      if (!match.itemIds.has(itemId)) continue;
      const ranges = rangesIn(row, match.needle);
      if (itemId === match.itemId && ranges.length > 0) {
        current = ranges[Math.min(match.occurrence, ranges.length - 1)];
        currentRow = row;
        others.push(...ranges.filter((range) => range !== current));
      } else others.push(...ranges);
    }
    if (others.length > 0) CSS.highlights.set(ALL, new Highlight(...others));
    if (!current || !currentRow) return;
    CSS.highlights.set(CURRENT, new Highlight(current));
    if (shown.current !== match.nonce && bringIntoView(current, currentRow, container)) shown.current = match.nonce;
  }, [scroller, match, rows]);

  useEffect(
    () => () => {
      if (!supported()) return;
      CSS.highlights.delete(ALL);
      CSS.highlights.delete(CURRENT);
    },
    [],
  );
}
