import type { ConversationEvent, Delivered } from "../events/events";
import type { EventBus } from "../events/bus";
import type { ConversationActor } from "./conversation-actor";

/**
 * Snapshot (or replay after Last-Event-ID) then live events, taken in one synchronous
 * step so nothing falls between them and nothing is sent twice.
 */
export function subscribeToConversation(
  bus: EventBus,
  actor: ConversationActor,
  options: { lastEventId?: number; session?: string },
  send: (delivered: Delivered<ConversationEvent>) => void,
  /** Called if this process stops carrying the conversation's events (EventBus.end). */
  onEnd?: () => void,
): () => void {
  const conversationId = actor.id;
  if (options.session) actor.session(options.session);
  const matches = (event: ConversationEvent) => !options.session || !event.sessionId || event.sessionId === options.session;
  const replay = options.lastEventId !== undefined ? bus.replay(conversationId, options.lastEventId) : null;
  if (replay) {
    for (const delivered of replay) if (matches(delivered.event)) send(delivered);
  } else {
    const sessionFilter = (candidate: { sessionId: string }) => !options.session || candidate.sessionId === options.session;
    send({
      id: bus.lastId(conversationId),
      event: {
        type: "snapshot",
        conversationId,
        items: actor.liveItems().filter(sessionFilter),
        turns: actor.runningTurns().filter(sessionFilter),
        waiting: actor.waitingList().filter(sessionFilter),
      },
    });
  }
  return bus.subscribe(
    conversationId,
    (delivered) => {
      if (matches(delivered.event)) send(delivered);
    },
    onEnd,
  );
}
