import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseConnection {
  events: EventSourceMessage[];
  /** Resolves with the first event (already received or later) that matches. */
  waitFor(match: (event: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>;
  close(): void;
  /** Resolves once the stream has ended: the server closed it, or close() was called. */
  ended: Promise<void>;
}

/** A minimal SSE client over fetch, for tests that read the stream like a browser would. */
export async function connectSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`SSE connect failed: ${response.status}`);
  const events: EventSourceMessage[] = [];
  const waiters: Array<{ match: (event: EventSourceMessage) => boolean; resolve: (event: EventSourceMessage) => void }> = [];
  const parser = createParser({
    onEvent(event) {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.match(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    waitFor(match, timeoutMs = 10_000) {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no matching SSE event in time")), timeoutMs);
        waiters.push({
          match,
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
        });
      });
    },
    close: () => controller.abort(),
    ended,
  };
}
