"use client";

import { ChevronDownIcon, ChevronUpIcon, Loader2Icon, XIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { useFindHits, type FindMatch, type Hits } from "./use-find-hits";

interface FindBarProps {
  conversationId: string;
  /** Show this match: load its item if it is not, scroll to it and mark it. */
  onJump: (match: FindMatch) => void;
  /** No hit to show any more (the words changed, or nothing matches). */
  onClear: () => void;
  onClose: () => void;
  /** Filled in when the bar opens (a sidebar search hit opened the conversation). */
  initialQuery?: string;
}

/**
 * Find in this conversation (Ctrl/Cmd+F): the server counts every match in the messages and
 * the tool output; the bar numbers them from the newest (1 of m is the closest above the end),
 * Enter goes to the next one further up, Shift+Enter back down, Esc closes.
 */
export function FindBar({ conversationId, onJump, onClear, onClose, initialQuery = "" }: FindBarProps) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState(initialQuery);
  const { hits, position, searching, failure, step } = useFindHits(conversationId, query, onJump, onClear);

  useEffect(() => input.current?.focus(), []);

  const status = findStatus(failure, searching, hits, position);

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

/** The count beside the field: null while searching (a spinner shows), "" before any words are typed. */
function findStatus(failure: string | null, searching: boolean, hits: Hits | null, position: number): string | null {
  if (failure) return "Search failed";
  if (searching) return null;
  if (hits === null) return "";
  return hits.total === 0 ? "No matches" : `${position + 1} of ${hits.total}`;
}
