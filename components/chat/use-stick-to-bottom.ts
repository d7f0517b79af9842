"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Closer than this to the end counts as at the end. */
const AT_END_PX = 40;

/**
 * Keeps a scroll container pinned to its end while new output streams in, unless the reader
 * scrolled up. Only a move up unpins: a smooth scroll on its way down, or content growing
 * between two scroll events, must not leave the view stuck short of the newest message.
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
    const onScroll = () => {
      const top = element.scrollTop;
      const atEnd = distanceToEnd(element) < AT_END_PX;
      if (atEnd) pinned.current = pinnable.current;
      else if (top < lastTop.current - 1) pinned.current = false;
      lastTop.current = top;
      setAtBottom(atEnd || pinned.current);
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    return () => element.removeEventListener("scroll", onScroll);
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
