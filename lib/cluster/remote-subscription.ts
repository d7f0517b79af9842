import { createParser } from "eventsource-parser";
import { AtriumError, isAtriumError } from "../errors";
import type { Runtime } from "../engine/runtime";
import type { ConversationEvent, Delivered } from "../events/events";
import { getCluster } from "./cluster-registry";

/** A conversation's events followed from the node holding it: started at once, stopped by the function it returns. */
export type RemoteSubscribe = (send: (delivered: Delivered<ConversationEvent>) => void, fail: (error: AtriumError) => void) => () => void;

/**
 * For the browser's multiplexed stream on a node of a cluster (DESIGN §10c): each conversation to
 * add is located first (a free lease is taken here); those another node holds are followed from
 * it, by their key. The rest subscribe here as on a single node.
 */
export async function remoteSubscriptions(
  runtime: Runtime,
  adds: ReadonlyArray<{ key: string; conversationId: string; lastEventId?: number; session?: string }>,
): Promise<Map<string, RemoteSubscribe>> {
  const remote = new Map<string, RemoteSubscribe>();
  if (!runtime.cluster) return remote;
  for (const add of adds) {
    const placement = await runtime.locate(add.conversationId);
    if (placement.kind === "elsewhere" && placement.url) remote.set(add.key, relayFrom(placement.url, add));
  }
  return remote;
}

/**
 * Follows GET /api/conversations/:id/events on the holder, signed as a node call, and hands each
 * event on with the holder's id: a snapshot first (or the replay after `lastEventId`), then live.
 * A stream that fails or ends is reported through `fail` (the browser subscribes again with its last id).
 */
function relayFrom(target: string, add: { conversationId: string; lastEventId?: number; session?: string }): RemoteSubscribe {
  return (send, fail) => {
    const cluster = getCluster();
    const controller = new AbortController();
    const path = `/api/conversations/${add.conversationId}/events${add.session ? `?session=${encodeURIComponent(add.session)}` : ""}`;
    const lost = (cause: unknown) => {
      if (controller.signal.aborted) return;
      fail(isAtriumError(cause) ? cause : new AtriumError("node_unavailable", `the stream from the node holding this conversation (${target}) ended; subscribe again`));
    };
    void (async () => {
      if (!cluster) throw new AtriumError("node_unavailable", "this server is not part of a cluster");
      const headers: Record<string, string> = { ...cluster.signatures.sign(cluster.nodeId, { method: "GET", path, body: "" }), accept: "text/event-stream" };
      if (add.lastEventId !== undefined) headers["last-event-id"] = String(add.lastEventId);
      const response = await fetch(`${target}${path}`, { headers, signal: controller.signal });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
        throw new AtriumError(response.status === 404 ? "not_found" : "node_unavailable", body?.error?.message ?? `the holder answered ${response.status}`);
      }
      const parser = createParser({
        onEvent: (event) => {
          if (event.id) send({ id: Number(event.id), event: JSON.parse(event.data) as ConversationEvent });
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) parser.feed(decoder.decode(read.value, { stream: true }));
      lost(null);
    })().catch(lost);
    return () => controller.abort();
  };
}
