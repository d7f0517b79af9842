"use client";

import { useCallback, useEffect, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import type { ListEvent } from "@/lib/events/events";
import { apiFetch } from "@/components/shared/api-client";

/** Conversations per page of the sidebar (the first page is rendered by the server). */
export const SIDEBAR_PAGE = 100;

type ListPage = { conversations: Conversation[]; nextCursor: string | null };

function byRecency(a: Conversation, b: Conversation): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : -1;
}

/**
 * The sidebar's unarchived conversations, most recent first: the server's first page, older
 * pages on request, and the list events applied as they come.
 */
export function useSidebarConversations(initial: Conversation[]) {
  const [conversations, setConversations] = useState(initial);
  const [hasMore, setHasMore] = useState(initial.length >= SIDEBAR_PAGE);
  const [loadingMore, setLoadingMore] = useState(false);

  useEffect(() => {
    setConversations(initial);
    setHasMore(initial.length >= SIDEBAR_PAGE);
  }, [initial]);

  /** The first page again (the stream reopened, so events may have been missed); older pages are dropped. */
  const refresh = useCallback(() => {
    apiFetch<ListPage>(`/api/conversations?limit=${SIDEBAR_PAGE}&sort=updated&direction=desc`).then(
      (body) => {
        setConversations(body.conversations);
        setHasMore(body.nextCursor !== null);
      },
      () => undefined,
    );
  }, []);

  // Older pages by offset; a conversation that moved meanwhile may come twice, so rows merge by id.
  const loadMore = useCallback(() => {
    setLoadingMore(true);
    apiFetch<ListPage>(`/api/conversations?limit=${SIDEBAR_PAGE}&sort=updated&direction=desc&cursor=${conversations.length}`).then(
      (body) => {
        setConversations((current) => {
          const known = new Set(current.map((conversation) => conversation.id));
          return [...current, ...body.conversations.filter((conversation) => !known.has(conversation.id))];
        });
        setHasMore(body.nextCursor !== null);
        setLoadingMore(false);
      },
      () => setLoadingMore(false),
    );
  }, [conversations.length]);

  const apply = useCallback((event: ListEvent) => {
    if (event.type === "conversation.created" || event.type === "conversation.updated") {
      const conversation = event.conversation;
      setConversations((current) => {
        const rest = current.filter((candidate) => candidate.id !== conversation.id);
        if (conversation.archived) return rest;
        return [...rest, conversation].sort(byRecency);
      });
    } else if (event.type === "conversation.deleted") {
      setConversations((current) => current.filter((candidate) => candidate.id !== event.conversationId));
    }
  }, []);

  return { conversations, refresh, apply, more: { available: hasMore, loading: loadingMore, load: loadMore } };
}
