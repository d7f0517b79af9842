"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Closer than this to the end counts as at the end. */
const AT_END_PX = 40;
/** A scroll up this soon after the reader's own wheel, touch or key counts as theirs. */
const INTENT_MS = 400;
/** Keys that scroll a focused history up. */
const UP_KEYS = new Set(["PageUp", "ArrowUp", "Home"]);

/**
 * Keeps a scroll container pinned to its end while new output streams in, until the reader scrolls up.
 * Only the reader unpins (a wheel or touch drag up, an up key, a press held on the scrollbar or a
 * selection) or `release()`; any other move up while pinned goes back to the end:
 * the virtual list moving the scroll offset as it measures rows, a smooth scroll on its way down, or
 * content growing between two scroll events must not leave the view stuck short of the newest message.
 * `canPin` false (the loaded history stops short of the latest) never pins: the end is not the end.
 */
export function useStickToBottom<T extends HTMLElement>(content: HTMLElement | null, canPin = true) {
  const container = useRef<T>(null);
  const pinned = useRef(canPin);
  const pinnable = useRef(canPin);
  pinnable.current = canPin;
  if (!canPin) pinned.current = false;
  const lastTop = useRef(0);
  const [atBottom, setAtBottom] = useState(true);

  const distanceToEnd = (element: HTMLElement) => element.scrollHeight - element.scrollTop - element.clientHeight;

  const scrollToBottom = useCallback((behavior: ScrollBehavior = "auto") => {
    const element = container.current;
    if (!element) return;
    pinned.current = pinnable.current;
    setAtBottom(true);
    element.scrollTo({ top: element.scrollHeight, behavior });
  }, []);

  useLayoutEffect(() => {
    scrollToBottom();
  }, [scrollToBottom]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let intentAt = -Infinity;
    let dragging = false;
    const intend = () => {
      intentAt = performance.now();
    };
    const readerIsScrolling = () => dragging || performance.now() - intentAt < INTENT_MS;
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) intend();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (UP_KEYS.has(event.key) || (event.key === " " && event.shiftKey)) intend();
    };
    // A press held on the scrollbar, or a text selection dragged past the top edge.
    const onPointerDown = () => {
      dragging = true;
    };
    const onPointerUp = () => {
      dragging = false;
    };
    const onScroll = () => {
      const top = element.scrollTop;
      const atEnd = distanceToEnd(element) < AT_END_PX;
      const movedUp = top < lastTop.current - 1;
      if (atEnd) pinned.current = pinnable.current;
      else if (movedUp && readerIsScrolling()) pinned.current = false;
      else if (movedUp && pinned.current) {
        // The list moved the offset itself (a row measured shorter than estimated): back to the end.
        element.scrollTop = element.scrollHeight;
      }
      lastTop.current = element.scrollTop;
      setAtBottom(atEnd || pinned.current);
    };
    element.addEventListener("wheel", onWheel, { passive: true });
    element.addEventListener("touchmove", intend, { passive: true });
    element.addEventListener("keydown", onKeyDown);
    element.addEventListener("pointerdown", onPointerDown);
    window.addEventListener("pointerup", onPointerUp);
    element.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      element.removeEventListener("wheel", onWheel);
      element.removeEventListener("touchmove", intend);
      element.removeEventListener("keydown", onKeyDown);
      element.removeEventListener("pointerdown", onPointerDown);
      window.removeEventListener("pointerup", onPointerUp);
      element.removeEventListener("scroll", onScroll);
    };
  }, []);

  useEffect(() => {
    if (!content) return;
    const observer = new ResizeObserver(() => {
      const element = container.current;
      if (!element) return;
      if (pinned.current) {
        element.scrollTop = element.scrollHeight;
        lastTop.current = element.scrollTop;
      }
      setAtBottom(pinned.current || distanceToEnd(element) < AT_END_PX);
    });
    observer.observe(content);
    // The viewport shrinks too (the waiting list, attachment chips or a banner appear): stay at the end then as well.
    if (container.current) observer.observe(container.current);
    return () => observer.disconnect();
  }, [content]);

  /** Stops following the end (a jump to an older message is about to scroll). */
  const release = useCallback(() => {
    pinned.current = false;
  }, []);

  return { container, atBottom, scrollToBottom, release };
}
