"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Keeps a scroll container pinned to its end while new output streams in, unless the reader scrolled up. */
export function useStickToBottom<T extends HTMLElement>(content: HTMLElement | null) {
  const container = useRef<T>(null);
  const pinned = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

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
      const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
      const bottom = distance < 80;
      pinned.current = bottom;
      setAtBottom(bottom);
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    return () => element.removeEventListener("scroll", onScroll);
  }, []);

  useEffect(() => {
    if (!content) return;
    const observer = new ResizeObserver(() => {
      const element = container.current;
      if (element && pinned.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(content);
    // The viewport shrinks too (the waiting list or a banner appears): stay at the end then as well.
    if (container.current) observer.observe(container.current);
    return () => observer.disconnect();
  }, [content]);

  return { container, atBottom, scrollToBottom };
}
