"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { Item } from "@/lib/events/entities";
import { findNeedle } from "@/lib/store/find-text";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

const TYPING_PAUSE_MS = 200;

interface FindHit {
  itemId: string;
  seq: number;
  kind: Item["kind"];
  matches: number;
}

export interface Hits {
  query: string;
  /** The newest hits found so far, in seq order. */
  items: FindHit[];
  /** Matches in the whole conversation. */
  total: number;
  /** Pass as before for the older hits, null once all are here. */
  older: number | null;
}

/** One match to show: the item, which of its matches (in reading order), and all hits to mark. */
export interface FindMatch {
  itemId: string;
  kind: Item["kind"];
  occurrence: number;
  needle: string;
  itemIds: ReadonlySet<string>;
  nonce: number;
}

/** The match at `position`, counted from the newest (0: the last match of the newest hit). */
function matchAt(found: Hits, position: number): Omit<FindMatch, "nonce" | "needle" | "itemIds"> | null {
  let remaining = position;
  for (let index = found.items.length - 1; index >= 0; index -= 1) {
    const hit = found.items[index];
    if (remaining < hit.matches) return { itemId: hit.itemId, kind: hit.kind, occurrence: hit.matches - 1 - remaining };
    remaining -= hit.matches;
  }
  return null;
}

const loadedMatches = (found: Hits) => found.items.reduce((sum, hit) => sum + hit.matches, 0);

/**
 * The server's count of every match of the text typed (after a pause), in messages and tool
 * output, counted from the newest: position 0 is the last match above the end. Stepping past
 * the hits fetched so far fetches the next older page.
 */
export function useFindHits(conversationId: string, query: string, onJump: (match: FindMatch) => void, onClear: () => void) {
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
      const params = new URLSearchParams({ q: text });
      if (before !== null) params.set("before", String(before));
      return apiFetch<{ hits: FindHit[]; nextCursor: number | null; total: number }>(`/api/conversations/${conversationId}/find?${params}`);
    },
    [conversationId],
  );

  const show = useCallback((found: Hits, at: number) => {
    setPosition(at);
    const match = matchAt(found, at);
    if (!match) return clear.current();
    jump.current({ ...match, needle: findNeedle(found.query), itemIds: new Set(found.items.map((hit) => hit.itemId)), nonce: Date.now() });
  }, []);

  useEffect(() => {
    const text = query.trim();
    const request = ++latestRequest.current;
    if (findNeedle(text) === "") {
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
          const found = { query: text, items: body.hits, total: body.total, older: body.nextCursor };
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

  /** Fetches older pages until `position` is among the loaded matches (or none are left). */
  const loadThrough = async (found: Hits, target: number): Promise<Hits | null> => {
    let loaded = found;
    const request = latestRequest.current;
    while (target >= loadedMatches(loaded) && loaded.older !== null) {
      const body = await fetchHits(loaded.query, loaded.older).catch(() => null);
      if (!body || request !== latestRequest.current) return null;
      loaded = { ...loaded, items: [...body.hits, ...loaded.items], older: body.nextCursor };
    }
    if (loaded !== found) setHits(loaded);
    return loaded;
  };

  const step = async (direction: 1 | -1) => {
    if (!hits || hits.total === 0) return;
    const next = (position + direction + hits.total) % hits.total;
    const found = await loadThrough(hits, next);
    if (found) show(found, Math.min(next, loadedMatches(found) - 1));
  };

  return { hits, position, searching, failure, step };
}
