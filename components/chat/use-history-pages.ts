"use client";

import { useCallback, useEffect, useRef, useState, type Dispatch } from "react";
import { toast } from "sonner";
import type { Item } from "@/lib/events/entities";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import type { ConversationAction, ConversationState } from "./conversation-state";

/** Items per page fetched while scrolling, and around a search hit. */
export const PAGE_SIZE = 100;

interface ItemsPage {
  items: Item[];
  nextCursor: number | null;
  previousCursor?: number | null;
}

export type PageLoad = "older" | "newer" | "window" | null;

/**
 * Fetches the conversation's history a page at a time through the items API: older pages
 * before the first item loaded, newer ones after the last (once a jump left the latest
 * behind), a window around an item (a search hit), and the latest page back again.
 * One fetch at a time: a scroll-driven page asked for meanwhile is asked for again once the
 * fetch under way has landed and rendered (a reader already at the top makes no more scroll
 * events to ask with), a window the reader asked for (a jump, back to the latest) waits its turn.
 * A page that lands after the view moved on is still merged by id.
 */
export function useHistoryPages(conversationId: string, state: ConversationState, dispatch: Dispatch<ConversationAction>) {
  const [loading, setLoading] = useState<PageLoad>(null);
  const inFlight = useRef<Promise<unknown> | null>(null);
  const current = useRef(state);
  current.current = state;

  const deferred = useRef<"older" | "newer" | null>(null);
  const [settled, setSettled] = useState(0);

  const run = useCallback(
    async (kind: Exclude<PageLoad, null>, query: string, apply: (page: ItemsPage) => void): Promise<boolean> => {
      if (inFlight.current && kind !== "window") {
        deferred.current = kind;
        return false;
      }
      while (inFlight.current) await inFlight.current.catch(() => undefined);
      const fetching = apiFetch<ItemsPage>(`/api/conversations/${conversationId}/items?${query}&limit=${PAGE_SIZE}`);
      inFlight.current = fetching;
      setLoading(kind);
      try {
        apply(await fetching);
        return true;
      } catch (error) {
        toast.error(`Could not load the history: ${errorMessage(error)}`);
        return false;
      } finally {
        inFlight.current = null;
        setLoading(null);
        if (deferred.current) setSettled((count) => count + 1);
      }
    },
    [conversationId],
  );

  const loadOlder = useCallback(() => {
    const { items, hasOlder } = current.current;
    if (!hasOlder || items.length === 0) return;
    void run("older", `before=${items[0].seq}`, (page) =>
      dispatch({ type: "page", placement: "older", items: page.items, hasOlder: page.nextCursor !== null }),
    );
  }, [run, dispatch]);

  const loadNewer = useCallback(() => {
    const { items, hasNewer } = current.current;
    if (!hasNewer || items.length === 0) return;
    void run("newer", `after=${items[items.length - 1].seq}`, (page) =>
      dispatch({ type: "page", placement: "newer", items: page.items, hasNewer: page.nextCursor !== null }),
    );
  }, [run, dispatch]);

  /** Makes sure the item is loaded: a window around it replaces the items when it is not. Resolves false if it could not be. */
  const loadAround = useCallback(
    async (itemId: string): Promise<boolean> => {
      if (current.current.items.some((item) => item.id === itemId)) return true;
      return run("window", `around=${encodeURIComponent(itemId)}`, (page) =>
        dispatch({ type: "page", placement: "window", items: page.items, hasOlder: page.previousCursor != null, hasNewer: page.nextCursor !== null }),
      );
    },
    [run, dispatch],
  );

  /** Back to the latest page after a jump left it behind. */
  const loadLatest = useCallback(async (): Promise<boolean> => {
    if (!current.current.hasNewer) return true;
    return run("window", "tail=true", (page) =>
      dispatch({ type: "page", placement: "window", items: page.items, hasOlder: page.nextCursor !== null, hasNewer: false }),
    );
  }, [run, dispatch]);

  // After the render that holds the landed page, so the deferred page starts from what is loaded now.
  useEffect(() => {
    const kind = deferred.current;
    deferred.current = null;
    if (kind === "older") loadOlder();
    else if (kind === "newer") loadNewer();
  }, [settled, loadOlder, loadNewer]);

  return { loading, loadOlder, loadNewer, loadAround, loadLatest };
}
