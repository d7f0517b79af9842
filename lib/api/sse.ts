import type { Delivered } from "../events/events";

const HEARTBEAT_MS = 15_000;
/** Past this many characters a stream's pending frames go out at once instead of at the end of the tick. */
const FLUSH_CHARACTERS = 64 * 1024;

/** Each delivered event's frame, serialized once however many streams send it (the bus hands every subscriber the same object). */
const frames = new WeakMap<object, string>();

function frameOf(delivered: Delivered<{ type: string }>): string {
  let frame = frames.get(delivered);
  if (frame === undefined) {
    frame = `id: ${delivered.id}\nevent: ${delivered.event.type}\ndata: ${JSON.stringify(delivered.event)}\n\n`;
    frames.set(delivered, frame);
  }
  return frame;
}

/**
 * An SSE response: `subscribe` is called once with a `send` function and returns the
 * unsubscribe. A client disconnect only detaches the subscriber; it never cancels work.
 * The first frame of a tick leaves at once; frames that follow it in the same tick leave
 * together at setImmediate: a model stream delivers deltas in bursts, and each chunk costs a
 * stream read, a socket write and a client wake-up, while a lone delta must not wait.
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
      let pending = "";
      /** Set from a tick's first frame until setImmediate: frames written meanwhile wait in `pending`. */
      let gathering: NodeJS.Immediate | null = null;
      const enqueue = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const flushPending = () => {
        const text = pending;
        pending = "";
        if (open && text !== "") enqueue(text);
      };
      const endGathering = () => {
        gathering = null;
        flushPending();
      };
      const write = (text: string) => {
        if (!open) return;
        if (gathering === null) {
          gathering = setImmediate(endGathering);
          enqueue(text);
          return;
        }
        pending += text;
        if (pending.length >= FLUSH_CHARACTERS) flushPending();
      };
      const heartbeat = setInterval(() => write(`: keep-alive ${Date.now()}\n\n`), HEARTBEAT_MS);
      const unsubscribe = subscribe((delivered) => write(frameOf(delivered)));
      const close = () => {
        if (!open) return;
        open = false;
        pending = "";
        if (gathering) clearImmediate(gathering);
        gathering = null;
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
