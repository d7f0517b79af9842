"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Closer than this to the end counts as at the end. */
const AT_END_PX = 40;

/**
 * Keeps a scroll container pinned to its end while new output streams in, unless the reader
 * scrolled up. Only a move up unpins: a smooth scroll on its way down, or content growing
 * between two scroll events, must not leave the view stuck short of the newest message.
 */
export function useStickToBottom<T extends HTMLElement>(content: HTMLElement | null) {
  const container = useRef<T>(null);
  const pinned = useRef(true);
  const lastTop = useRef(0);
  const [atBottom, setAtBottom] = useState(true);

  const distanceToEnd = (element: HTMLElement) => element.scrollHeight - element.scrollTop - element.clientHeight;

  const scrollToBottom = useCallback((behavior: ScrollBehavior = "auto") => {
    const element = container.current;
    if (!element) return;
    pinned.current = true;
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
      if (atEnd) pinned.current = true;
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

  return { container, atBottom, scrollToBottom };
}
