import type { Runtime } from "../../lib/engine/runtime";
import type { ConversationEvent } from "../../lib/events/events";
import { monotonicMs } from "../support/stats";
import type { EchoServer } from "./echo-server";
import type { SseClients } from "./client";
import type { Receipts } from "./client-process";
import type { RuntimeServer } from "./runtime-server";

export interface RoundResult {
  /** Deltas delivered, summed over every client. */
  delivered: number;
  /** From the first delta's publish to the last delta parsed by any client. */
  spanMs: number;
  /** Parse time minus publish time, one per delivered delta. */
  latencies: number[];
}

export interface Pattern {
  words: number;
  /** Wait before each delta ([[delay:MS]] for the offline model, the same sleep for the echo). */
  delayMs: number;
  clients: number;
}

type Delta = Extract<ConversationEvent, { type: "item.delta" }>;

function summarize(published: Map<number, number>, receipts: Receipts): RoundResult {
  const latencies: number[] = [];
  let last = 0;
  receipts.ids.forEach((ids, stream) => {
    const times = receipts.times[stream];
    ids.forEach((id, index) => {
      const publishedAt = published.get(id);
      if (publishedAt === undefined) throw new Error(`delta ${id} was received but never published`);
      latencies.push(times[index] - publishedAt);
      last = Math.max(last, times[index]);
    });
  });
  const first = Math.min(...published.values());
  return { delivered: latencies.length, spanMs: last - first, latencies };
}

/** With no client, the rate at which the engine publishes: the ceiling the SSE side works under. */
function publishOnly(published: Map<number, number>): RoundResult {
  const times = [...published.values()];
  return { delivered: times.length, spanMs: Math.max(...times) - Math.min(...times), latencies: [] };
}

/** Resolves once the turn has ended, whether that happened already or happens later. */
export function turnEnded(runtime: Runtime, conversationId: string, turnId: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (event.type === "turn.ended" && event.turn.id === turnId) {
        unsubscribe();
        resolve();
      }
    });
    if (runtime.getTurn(turnId).endedAt) {
      unsubscribe();
      resolve();
    }
  });
}

/**
 * One turn of the offline model through the real Runtime, watched by `clients` SSE streams
 * on the app's route (none: only the in-process timing listener). A fresh conversation each round keeps the history (and the prompt) equal.
 * Returns the measurements and the delta events, which the echo then replays.
 */
export async function runtimeRound(
  server: RuntimeServer,
  clients: SseClients,
  pattern: Pattern,
): Promise<{ result: RoundResult; deltas: Delta[] }> {
  const { runtime } = server;
  const created = await runtime.createConversation({ text: "bench" });
  const conversationId = created.conversation.id;
  await turnEnded(runtime, conversationId, created.turn.id);

  const published = new Map<number, number>();
  const deltas: Delta[] = [];
  // Subscribed before the SSE streams, so the bus calls this listener first for every event.
  const unsubscribe = runtime.bus.subscribe(conversationId, ({ id, event }) => {
    if (event.type !== "item.delta") return;
    published.set(id, monotonicMs());
    deltas.push(event);
  });
  try {
    const url = `${server.origin}/api/conversations/${conversationId}/events`;
    const streams =
      pattern.clients > 0
        ? clients.connect({ urls: Array(pattern.clients).fill(url), headers: server.headers, expected: Infinity })
        : null;
    await streams?.ready;
    const delay = pattern.delayMs > 0 ? ` [[delay:${pattern.delayMs}]]` : "";
    const sent = await runtime.sendMessage(conversationId, { text: `go [[stream:${pattern.words}]]${delay}`, mode: "auto" });
    const receipts = streams ? await streams.done : null;
    await turnEnded(runtime, conversationId, sent.turn!.id);
    return { result: receipts ? summarize(published, receipts) : publishOnly(published), deltas };
  } finally {
    unsubscribe();
  }
}

/** The same delta events through an echo server, in the same pattern. */
export async function echoRound(server: EchoServer, clients: SseClients, deltas: readonly Delta[], pattern: Pattern): Promise<RoundResult> {
  await server.idle();
  const streams = clients.connect({ urls: Array(pattern.clients).fill(server.url), headers: {}, expected: deltas.length });
  await streams.ready;
  const published = await server.stream(deltas, pattern.delayMs);
  return summarize(published, await streams.done);
}

export function deltasPerSecond(result: RoundResult): number {
  return (result.delivered / result.spanMs) * 1000;
}
