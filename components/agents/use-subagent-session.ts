"use client";

import { useCallback, useEffect, useReducer } from "react";
import type { Approval, Conversation, Item, Session, Turn } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";
import { apiFetch } from "@/components/shared/api-client";
import { useLiveConversation } from "@/components/live/use-live";
import { conversationReducer, initialState, openTurn as findOpenTurn } from "@/components/chat/conversation-state";

/** One subagent session's history, fetched and then kept live by the conversation's stream narrowed to that session. */
export function useSubagentSession(conversation: Conversation, session: Session) {
  const id = conversation.id;
  // The conversation reducer keeps one session's items: point it at this subagent.
  const [state, dispatch] = useReducer(
    conversationReducer,
    { conversation: { ...conversation, rootSessionId: session.id }, items: [], turns: [], waiting: [], approvals: [], questions: [] },
    initialState,
  );

  const refetch = useCallback(() => {
    void Promise.all([
      apiFetch<{ items: Item[] }>(`/api/conversations/${id}/items?session=${encodeURIComponent(session.id)}&limit=500`),
      apiFetch<{ turns: Turn[] }>(`/api/conversations/${id}/turns`),
      // Approvals asked before the panel opened: decided here too, not only in the main timeline.
      apiFetch<{ approvals: Approval[] }>(`/api/approvals?status=pending`),
    ]).then(
      ([itemsBody, turnsBody, approvalsBody]) => {
        dispatch({
          type: "resync",
          data: {
            conversation: { ...conversation, rootSessionId: session.id },
            items: itemsBody.items,
            turns: turnsBody.turns.filter((turn) => turn.sessionId === session.id),
            approvals: approvalsBody.approvals.filter((approval) => approval.conversationId === id && approval.sessionId === session.id),
            questions: [],
          },
        });
      },
      () => undefined,
    );
  }, [id, session.id, conversation]);

  useEffect(() => refetch(), [refetch]);

  useLiveConversation(
    id,
    (event: ConversationEvent) => {
      if (event.type === "conversation.updated" || event.type === "objective.updated") return;
      dispatch({ type: "event", event, receivedAt: Date.now() });
      if (event.type === "snapshot" || event.type === "turn.ended") refetch();
    },
    { session: session.id },
  );

  return { state, openTurn: findOpenTurn(state) };
}
