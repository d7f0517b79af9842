"use client";

import { ChevronDownIcon, ChevronUpIcon, Loader2Icon, XIcon } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Item } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

/** Hits fetched per request, newest first. */
const HITS_PAGE = 200;
const TYPING_PAUSE_MS = 200;

interface Hits {
  query: string;
  /** The newest hits found so far, in seq order. */
  items: Item[];
  total: number;
  /** Pass as before for the older hits, null once all are here. */
  older: number | null;
}

interface FindBarProps {
  conversationId: string;
  /** Show this hit: load it if it is not, scroll to it and mark it. */
  onJump: (item: Item, words: string[]) => void;
  /** No hit to show any more (the words changed, or nothing matches). */
  onClear: () => void;
  onClose: () => void;
}

export const searchWords = (query: string) => query.match(/[\p{L}\p{N}_]+/gu) ?? [];

/**
 * Find in this conversation (Ctrl/Cmd+F): the server searches the conversation's messages;
 * the bar counts the hits from the newest (1 of m is the closest above the end), Enter goes
 * to the next one further up, Shift+Enter back down, Esc closes.
 */
export function FindBar({ conversationId, onJump, onClear, onClose }: FindBarProps) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<Hits | null>(null);
  const [position, setPosition] = useState(0);
  const [searching, setSearching] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const latestRequest = useRef(0);
  const jump = useRef(onJump);
  jump.current = onJump;
  const clear = useRef(onClear);
  clear.current = onClear;

  useEffect(() => input.current?.focus(), []);

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
      // Further up than the hits fetched so far: fetch the next older page first.
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

  const status = failure
    ? "Search failed"
    : searching
      ? null
      : hits === null
        ? ""
        : hits.total === 0
          ? "No matches"
          : `${position + 1} of ${hits.total}`;

  return (
    <div
      role="search"
      aria-label="Find in conversation"
      className="absolute top-2 right-3 z-10 flex items-center gap-1 rounded-lg border bg-popover p-1 text-popover-foreground shadow-md md:right-5"
    >
      <Input
        ref={input}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            onClose();
          } else if (event.key === "Enter") {
            event.preventDefault();
            void step(event.shiftKey ? -1 : 1);
          }
        }}
        placeholder="Find in conversation"
        aria-label="Find in conversation"
        className="h-8 w-40 border-0 shadow-none focus-visible:ring-0 sm:w-56"
      />
      <span role="status" aria-live="polite" className="min-w-16 px-1 text-right text-xs whitespace-nowrap text-muted-foreground tabular-nums" title={failure ?? undefined}>
        {status === null ? <Loader2Icon className="ml-auto size-3.5 animate-spin" aria-label="Searching" /> : status}
      </span>
      <Button variant="ghost" size="icon-sm" aria-label="Next match" title="Next match, further up (Enter)" disabled={!hits?.total} onClick={() => void step(1)}>
        <ChevronUpIcon />
      </Button>
      <Button variant="ghost" size="icon-sm" aria-label="Previous match" title="Previous match, further down (Shift+Enter)" disabled={!hits?.total} onClick={() => void step(-1)}>
        <ChevronDownIcon />
      </Button>
      <Button variant="ghost" size="icon-sm" aria-label="Close find" title="Close (Esc)" onClick={onClose}>
        <XIcon />
      </Button>
    </div>
  );
}
