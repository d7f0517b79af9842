import { setTimeout as delay } from "node:timers/promises";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { conversationEventSchema, type ConversationEvent } from "../events/events";
import { ChatApiError } from "./chat-api";

export type StreamSignal =
  | { kind: "event"; event: ConversationEvent }
  | { kind: "dropped"; reason: string }
  | { kind: "resumed" };

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000];

/**
 * The conversation's events, across reconnects. After a drop it reconnects with the last
 * event id, so the server replays what was missed (or sends a fresh snapshot when it no
 * longer holds it). A 401 or 404 ends the stream with that error: retrying cannot help.
 */
export async function* followConversationEvents(options: {
  first: Response;
  reconnect: (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;
  signal: AbortSignal;
}): AsyncGenerator<StreamSignal> {
  const { signal } = options;
  let lastEventId: string | undefined;
  let response: Response | null = options.first;
  let failures = 0;
  while (!signal.aborted) {
    if (response === null) {
      try {
        response = await options.reconnect(lastEventId, signal);
        failures = 0;
        yield { kind: "resumed" };
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ChatApiError && (error.status === 401 || error.status === 404)) throw error;
        await delay(RECONNECT_DELAYS_MS[Math.min(failures++, RECONNECT_DELAYS_MS.length - 1)], undefined, { signal }).catch(() => undefined);
        continue;
      }
    }
    const messages: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => messages.push(message) });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let reason = "the server closed the stream";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
        for (const message of messages.splice(0)) {
          if (message.id !== undefined) lastEventId = message.id;
          const event = parseEvent(message.data);
          if (event) yield { kind: "event", event };
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      reason = error instanceof Error ? error.message : String(error);
    } finally {
      reader.releaseLock();
    }
    if (signal.aborted) return;
    response = null;
    yield { kind: "dropped", reason };
  }
}

/**
 * An event this client cannot read (a newer server's event type, say) is skipped:
 * the stream stays useful and the browser remains the complete view.
 */
function parseEvent(data: string): ConversationEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = conversationEventSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
