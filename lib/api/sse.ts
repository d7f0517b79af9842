import type { Delivered } from "../events/events";

const HEARTBEAT_MS = 15_000;

/**
 * An SSE response: `subscribe` is called once with a `send` function and returns the
 * unsubscribe. A client disconnect only detaches the subscriber; it never cancels work.
 */
export function sseResponse<Event extends { type: string }>(
  request: Request,
  subscribe: (send: (delivered: Delivered<Event>) => void) => () => void,
): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const heartbeat = setInterval(() => write(`: keep-alive ${Date.now()}\n\n`), HEARTBEAT_MS);
      const unsubscribe = subscribe((delivered) =>
        write(`id: ${delivered.id}\nevent: ${delivered.event.type}\ndata: ${JSON.stringify(delivered.event)}\n\n`),
      );
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      cleanup = close;
      request.signal.addEventListener("abort", close, { once: true });
      write(": connected\n\n");
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}

export function lastEventId(request: Request): number | undefined {
  const header = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (!header || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}
