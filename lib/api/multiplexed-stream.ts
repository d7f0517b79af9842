import { AtriumError, isAtriumError } from "../errors";
import type { ConversationEvent, Delivered, ListEvent } from "../events/events";
import type { Runtime } from "../engine/runtime";
import { createIdGenerator } from "../store/ids";
import type { RemoteSubscribe } from "../cluster/remote-subscription";
import { sseStream, type SseWriter } from "./sse";
import { MAX_SUBSCRIPTIONS_PER_STREAM, type StreamSubscription } from "./stream-schemas";

/** One open GET /api/stream: its writer and the conversation subscriptions it carries, by key. */
interface OpenStream {
  writer: SseWriter;
  subscriptions: Map<string, () => void>;
}

/** Streams by id, on globalThis: the GET and the POST that changes its set live in different bundles. */
const STREAMS = Symbol.for("atrium.multiplexedStreams");
function streams(): Map<string, OpenStream> {
  const holder = globalThis as { [STREAMS]?: Map<string, OpenStream> };
  holder[STREAMS] ??= new Map();
  return holder[STREAMS];
}

const nextStreamId = createIdGenerator();

/** Each event's JSON, made once however many subscriptions carry it; only the last is kept (see frameOf in ./sse). */
let lastDelivered: object | null = null;
let lastJson = "";
function jsonOf(delivered: Delivered<{ type: string }>): string {
  if (delivered !== lastDelivered) {
    lastJson = JSON.stringify(delivered.event);
    lastDelivered = delivered;
  }
  return lastJson;
}

function frame(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

/**
 * GET /api/stream: announces its id, then carries list-level events and every conversation
 * subscription added to it with POST /api/stream/:id/subscriptions. No SSE `id:` lines: resume
 * is per subscription, by the ids inside the frames.
 */
export function openMultiplexedStream(request: Request, runtime: Runtime): Response {
  const streamId = nextStreamId();
  return sseStream(request, (writer) => {
    const open: OpenStream = { writer, subscriptions: new Map() };
    streams().set(streamId, open);
    writer.write(frame("stream.opened", JSON.stringify({ type: "stream.opened", streamId })));
    const stopList = runtime.subscribeList((delivered: Delivered<ListEvent>) =>
      writer.write(frame("list", `{"type":"list","id":${delivered.id},"event":${jsonOf(delivered)}}`)),
    );
    return () => {
      stopList();
      for (const stop of open.subscriptions.values()) stop();
      open.subscriptions.clear();
      streams().delete(streamId);
    };
  });
}

/**
 * Changes a stream's set without reconnecting. Each added subscription gets its snapshot (or
 * the replay after its lastEventId) then live events, taken in one synchronous step by the
 * Runtime, so nothing falls between and nothing comes twice. Re-adding a key replaces it.
 */
export function updateSubscriptions(
  runtime: Runtime,
  streamId: string,
  change: { add: StreamSubscription[]; remove: string[] },
  /** Cluster mode: subscriptions followed from the node holding their conversation, by key (lib/cluster/remote-subscription). */
  remote: ReadonlyMap<string, RemoteSubscribe> = new Map(),
): { subscriptions: number } {
  const open = streams().get(streamId);
  if (!open) throw new AtriumError("not_found", `stream ${streamId} is not open (reconnect and subscribe again)`);
  for (const key of change.remove) {
    open.subscriptions.get(key)?.();
    open.subscriptions.delete(key);
  }
  for (const subscription of change.add) {
    open.subscriptions.get(subscription.key)?.();
    open.subscriptions.delete(subscription.key);
    if (open.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_STREAM) {
      throw new AtriumError("bad_request", `a stream carries at most ${MAX_SUBSCRIPTIONS_PER_STREAM} subscriptions`);
    }
    const prefix = `{"type":"conversation","key":${JSON.stringify(subscription.key)},"id":`;
    const send = (delivered: Delivered<ConversationEvent>) =>
      open.writer.write(frame("conversation", `${prefix}${delivered.id},"event":${jsonOf(delivered)}}`));
    const failed = (error: AtriumError) =>
      open.writer.write(
        frame(
          "subscription.failed",
          JSON.stringify({ type: "subscription.failed", key: subscription.key, conversationId: subscription.conversationId, error: { code: error.code, message: error.message } }),
        ),
      );
    const relay = remote.get(subscription.key);
    if (relay) {
      open.subscriptions.set(subscription.key, relay(send, failed));
      continue;
    }
    try {
      const stop = runtime.subscribe(
        subscription.conversationId,
        { lastEventId: subscription.lastEventId, session: subscription.session },
        send,
        // This node stopped carrying the conversation (its lease went to another node): the browser asks again.
        () => {
          open.subscriptions.delete(subscription.key);
          failed(new AtriumError("node_unavailable", `this node no longer holds conversation ${subscription.conversationId}; subscribe again`));
        },
      );
      open.subscriptions.set(subscription.key, stop);
    } catch (error) {
      if (!isAtriumError(error)) throw error;
      failed(error);
    }
  }
  return { subscriptions: open.subscriptions.size };
}
