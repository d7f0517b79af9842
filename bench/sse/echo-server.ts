import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { sseResponse } from "../../lib/api/sse";
import type { Delivered } from "../../lib/events/events";
import { monotonicMs } from "../support/stats";
import { pipeResponse, toWebRequest } from "./pipe-response";

/**
 * `bare`: the floor, a node:http SSE server writing each frame straight to the sockets,
 * serialized once for all clients. `sse-response`: the same source through the app's own
 * lib/api/sse.ts framing and the same piping as the route, with no engine or bus, which
 * splits the app's gap between the SSE layer and the engine.
 */
export type Framing = "bare" | "sse-response";

export interface EchoServer {
  url: string;
  /**
   * Sends one SSE frame per event to every connected client, pulling the events from an
   * async source as an echo of a model stream would (waiting `delayMs` before each when set).
   * Returns when each frame was published, by SSE id.
   */
  stream(events: readonly object[], delayMs: number): Promise<Map<number, number>>;
  /** Resolves once the streams of earlier rounds have gone, so a round sends only to its own. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

async function* source(events: readonly object[], delayMs: number) {
  for (const event of events) {
    if (delayMs > 0) await sleep(delayMs);
    yield event;
  }
}

export async function startEchoServer(framing: Framing): Promise<EchoServer> {
  const sockets = new Set<http.ServerResponse>();
  const senders = new Set<(delivered: Delivered<{ type: string }>) => void>();
  const idleWaiters: Array<() => void> = [];
  let nextId = Date.now() * 1000;

  const server = http.createServer((incoming, outgoing) => {
    sockets.add(outgoing);
    outgoing.once("close", () => {
      sockets.delete(outgoing);
      if (sockets.size === 0) idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    if (framing === "bare") {
      outgoing.writeHead(200, HEADERS);
      outgoing.write(": connected\n\n");
      return;
    }
    const response = sseResponse(toWebRequest(incoming, outgoing), (send) => {
      senders.add(send);
      return () => senders.delete(send);
    });
    void pipeResponse(response, outgoing);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/events`,
    async stream(events, delayMs) {
      const published = new Map<number, number>();
      for await (const event of source(events, delayMs)) {
        const id = ++nextId;
        published.set(id, monotonicMs());
        // Like the route, neither side lets socket backpressure reach the source.
        if (framing === "bare") {
          const frame = `id: ${id}\nevent: item.delta\ndata: ${JSON.stringify(event)}\n\n`;
          for (const socket of sockets) socket.write(frame);
        } else {
          for (const send of senders) send({ id, event: event as { type: string } });
        }
      }
      return published;
    },
    idle() {
      if (sockets.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
