"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { Item } from "@/lib/events/entities";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

/** Hits fetched per request, newest first. */
const HITS_PAGE = 200;
const TYPING_PAUSE_MS = 200;

export interface Hits {
  query: string;
  /** The newest hits found so far, in seq order. */
  items: Item[];
  total: number;
  /** Pass as before for the older hits, null once all are here. */
  older: number | null;
}

export const searchWords = (query: string) => query.match(/[\p{L}\p{N}_]+/gu) ?? [];

/**
 * The server's hits for the words typed (after a pause), counted from the newest: position 0
 * is the closest above the end. Stepping past the hits fetched so far fetches the next older page.
 */
export function useFindHits(conversationId: string, query: string, onJump: (item: Item, words: string[]) => void, onClear: () => void) {
  const [hits, setHits] = useState<Hits | null>(null);
  const [position, setPosition] = useState(0);
  const [searching, setSearching] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const latestRequest = useRef(0);
  const jump = useRef(onJump);
  jump.current = onJump;
  const clear = useRef(onClear);
  clear.current = onClear;

  const fetchHits = useCallback(
    (text: string, before: number | null) => {
      const params = new URLSearchParams({ q: text, limit: String(HITS_PAGE) });
      if (before === null) params.set("tail", "true");
      else params.set("before", String(before));
      return apiFetch<{ items: Item[]; nextCursor: number | null; total: number }>(`/api/conversations/${conversationId}/items?${params}`);
    },
    [conversationId],
  );

  const show = useCallback((found: Hits, at: number) => {
    setPosition(at);
    const item = found.items[found.items.length - 1 - at];
    if (item) jump.current(item, searchWords(found.query));
    else clear.current();
  }, []);

  useEffect(() => {
    const text = query.trim();
    const request = ++latestRequest.current;
    if (searchWords(text).length === 0) {
      clear.current();
      setHits(null);
      setSearching(false);
      return;
    }
    setSearching(true);
    const timer = window.setTimeout(() => {
      fetchHits(text, null).then(
        (body) => {
          if (request !== latestRequest.current) return;
          const found = { query: text, items: body.items, total: body.total, older: body.nextCursor };
          setHits(found);
          setFailure(null);
          setSearching(false);
          show(found, 0);
        },
        (error) => {
          if (request !== latestRequest.current) return;
          setFailure(errorMessage(error));
          setSearching(false);
        },
      );
    }, TYPING_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [query, fetchHits, show]);

  const step = async (direction: 1 | -1) => {
    if (!hits || hits.total === 0) return;
    let found = hits;
    let next = position + direction;
    if (next >= found.items.length && found.older !== null) {
      const request = latestRequest.current;
      const body = await fetchHits(found.query, found.older).catch(() => null);
      if (!body || request !== latestRequest.current) return;
      found = { ...found, items: [...body.items, ...found.items], older: body.nextCursor };
      setHits(found);
    }
    if (next >= found.items.length) next = 0;
    if (next < 0) next = found.items.length - 1;
    show(found, next);
  };

  return { hits, position, searching, failure, step };
}
