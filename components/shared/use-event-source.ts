"use client";

import { useEffect, useRef, useState } from "react";

export type ConnectionState = "connecting" | "open" | "reconnecting";

/**
 * Listens to an SSE stream of named events. EventSource reconnects by itself and sends
 * Last-Event-ID, so the server replays what was missed (or sends a fresh snapshot).
 */
export function useEventSource<Event extends { type: string }>(
  url: string | null,
  types: readonly string[],
  onEvent: (event: Event) => void,
  onOpen?: () => void,
): ConnectionState {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const openHandler = useRef(onOpen);
  openHandler.current = onOpen;
  const [state, setState] = useState<ConnectionState>("connecting");
  const typeKey = types.join(",");

  useEffect(() => {
    if (!url) return;
    const source = new EventSource(url);
    const listener = (message: MessageEvent<string>) => {
      let parsed: Event;
      try {
        parsed = JSON.parse(message.data) as Event;
      } catch {
        return;
      }
      handler.current(parsed);
    };
    for (const type of typeKey.split(",")) source.addEventListener(type, listener as EventListener);
    source.onopen = () => {
      setState("open");
      openHandler.current?.();
    };
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "connecting" : "reconnecting");
    return () => source.close();
  }, [url, typeKey]);

  return state;
}
