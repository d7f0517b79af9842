"use client";

import { useCallback, useReducer, useRef, useState, type Dispatch } from "react";
import { resyncConversation } from "@/app/(workspace)/c/[id]/actions";
import type { Approval, Conversation, Item, Question, Turn, Waiting } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";
import { errorMessage } from "@/components/shared/api-client";
import { useLiveConversation } from "@/components/live/use-live";
import { conversationReducer, initialState, openTurn as findOpenTurn, type ConversationAction, type ConversationState } from "./conversation-state";
import { useHistoryPages } from "./use-history-pages";

/** What the server painted the conversation page with. */
export interface ConversationInitialData {
  conversation: Conversation;
  items: Item[];
  turns: Turn[];
  waiting: Waiting[];
  approvals: Approval[];
  questions: Question[];
}

export interface ResyncFailure {
  message: string;
  afterSeq: number;
}

/** Where a resync after a snapshot starts: the first item still open here, else the last one known. */
function resyncStart(state: ConversationState): number {
  // A window that stops short of the latest (after a jump) fetches newer pages as it scrolls instead.
  if (state.hasNewer) return Number.MAX_SAFE_INTEGER;
  const known = state.items;
  const firstOpen = known.find((item) => item.status === "streaming" || item.status === "waiting");
  if (firstOpen) return firstOpen.seq - 1;
  return known.length > 0 ? known[known.length - 1].seq : 0;
}

/** The resync after each snapshot; a failure is kept (not dropped) so the view can show it and offer Retry. */
function useResync(id: string, dispatch: Dispatch<ConversationAction>) {
  const [failure, setFailure] = useState<ResyncFailure | null>(null);
  const [retrying, setRetrying] = useState(false);
  const latest = useRef(0);

  const resync = useCallback(
    async (afterSeq: number) => {
      const request = ++latest.current;
      try {
        const data = await resyncConversation(id, afterSeq);
        if (data) dispatch({ type: "resync", data });
        if (request === latest.current) setFailure(null);
      } catch (error) {
        if (request === latest.current) setFailure({ message: errorMessage(error), afterSeq });
      }
    },
    [id, dispatch],
  );

  const retry = useCallback(async () => {
    if (!failure) return;
    setRetrying(true);
    await resync(failure.afterSeq);
    setRetrying(false);
  }, [failure, resync]);

  return { resync, failure, retrying, retry };
}

/**
 * One conversation's state in the browser: the reducer first painted from the server, the
 * live subscription (SSE) that keeps it current, the resync after each snapshot and the
 * history's pages. The conversation view's parts read it through ConversationProvider.
 */
export function useConversation(id: string, initial: ConversationInitialData) {
  const [state, dispatch] = useReducer(conversationReducer, initial, initialState);
  const current = useRef(state);
  current.current = state;
  const { resync, failure, retrying, retry } = useResync(id, dispatch);

  const connection = useLiveConversation(id, (event: ConversationEvent) => {
    // The snapshot covers running turns only: what finished while this page was not listening is fetched
    // from the first item still open here (it may have completed meanwhile), computed before the snapshot lands.
    const afterSeq = event.type === "snapshot" ? resyncStart(current.current) : null;
    dispatch({ type: "event", event, receivedAt: Date.now() });
    if (afterSeq !== null) void resync(afterSeq);
  });

  const pages = useHistoryPages(id, state, dispatch);
  const openTurn = findOpenTurn(state);

  return { id, state, dispatch, connection, openTurn, pages, resync: { failure, retrying, retry } };
}

export type ConversationStore = ReturnType<typeof useConversation>;
