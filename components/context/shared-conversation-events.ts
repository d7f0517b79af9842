"use client";

import { useEffect, useRef } from "react";
import type { ConversationEvent } from "@/lib/events/events";
import { CONVERSATION_EVENT_TYPES } from "@/components/chat/conversation-state";

/**
 * One EventSource per conversation shared by the header widgets (context ring, Agents tab), so
 * they do not each hold one of the browser's few connections per host.
 */
interface Shared {
  source: EventSource;
  listeners: Set<(event: ConversationEvent) => void>;
}

const shared = new Map<string, Shared>();

function subscribe(url: string, listener: (event: ConversationEvent) => void): () => void {
  let entry = shared.get(url);
  if (!entry) {
    const source = new EventSource(url);
    const created: Shared = { source, listeners: new Set() };
    const dispatch = (message: MessageEvent<string>) => {
      let parsed: ConversationEvent;
      try {
        parsed = JSON.parse(message.data) as ConversationEvent;
      } catch {
        return;
      }
      for (const each of [...created.listeners]) each(parsed);
    };
    for (const type of CONVERSATION_EVENT_TYPES) source.addEventListener(type, dispatch as EventListener);
    entry = created;
    shared.set(url, entry);
  }
  entry.listeners.add(listener);
  const current = entry;
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size === 0) {
      current.source.close();
      if (shared.get(url) === current) shared.delete(url);
    }
  };
}

export function useSharedConversationEvents(conversationId: string, onEvent: (event: ConversationEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => subscribe(`/api/conversations/${conversationId}/events`, (event) => handler.current(event)), [conversationId]);
}
