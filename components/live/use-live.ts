"use client";

import { useEffect, useRef, useState } from "react";
import type { ConversationEvent, ListEvent } from "@/lib/events/events";
import { liveHub, type ConnectionState } from "./live-hub";

export type { ConnectionState };

/**
 * A conversation's events over the browser's one stream: a snapshot (or the replay after the
 * last id this component saw) then live events. `session` narrows to one subagent session.
 */
export function useLiveConversation(
  conversationId: string | null,
  onEvent: (event: ConversationEvent) => void,
  options: { session?: string } = {},
): ConnectionState {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [state, setState] = useState<ConnectionState>("connecting");
  const session = options.session;
  useEffect(() => {
    if (!conversationId) return;
    setState("connecting");
    return liveHub().subscribeConversation(conversationId, session, (event) => handler.current(event), setState);
  }, [conversationId, session]);
  return state;
}

/** List-level events (sidebar, archive, approvals); `onOpen` runs whenever the stream (re)opens. */
export function useLiveList(onEvent: (event: ListEvent) => void, onOpen?: () => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const openHandler = useRef(onOpen);
  openHandler.current = onOpen;
  useEffect(
    () => liveHub().subscribeList({ onEvent: (event) => handler.current(event), onOpen: () => openHandler.current?.() }),
    [],
  );
}
