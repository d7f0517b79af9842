"use client";

import { useEffect, type RefObject } from "react";

const HIGHLIGHT = "atrium-find";

/** Word starts in `text` that begin one of the words searched for (the server matches each word as a prefix). */
function matches(text: string, words: string[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  const lower = text.toLocaleLowerCase();
  for (const word of words) {
    const needle = word.toLocaleLowerCase();
    let at = lower.indexOf(needle);
    while (at !== -1) {
      const before = at === 0 ? "" : lower[at - 1];
      if (!/[\p{L}\p{N}_]/u.test(before)) found.push([at, at + needle.length]);
      at = lower.indexOf(needle, at + needle.length);
    }
  }
  return found;
}

/**
 * Marks the searched words in the hit's row with the CSS Custom Highlight API, so the
 * rendered markdown is left as it is. Rows come and go as the list scrolls: the marks are
 * laid again whenever the rendered rows change. Browsers without the API keep the row's outline.
 */
export function useFindHighlight(scroller: RefObject<HTMLElement | null>, hit: { itemId: string; words: string[] } | null, rows: unknown[]): void {
  useEffect(() => {
    if (typeof CSS === "undefined" || !("highlights" in CSS) || typeof Highlight !== "function") return;
    CSS.highlights.delete(HIGHLIGHT);
    const row = hit && scroller.current?.querySelector(`[data-item-id="${CSS.escape(hit.itemId)}"]`);
    if (!hit || !row) return;
    const ranges: Range[] = [];
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const [start, end] of matches(node.textContent ?? "", hit.words)) {
        const range = new Range();
        range.setStart(node, start);
        range.setEnd(node, end);
        ranges.push(range);
      }
    }
    if (ranges.length > 0) CSS.highlights.set(HIGHLIGHT, new Highlight(...ranges));
  }, [scroller, hit, rows]);

  useEffect(() => () => void (typeof CSS !== "undefined" && "highlights" in CSS && CSS.highlights.delete(HIGHLIGHT)), []);
}
