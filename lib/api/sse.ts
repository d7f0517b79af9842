import type { Delivered } from "../events/events";
import { PlainAnswer } from "./plain-answer";
import { streamClient, streamSlots } from "./stream-slots";

const HEARTBEAT_MS = 15_000;
/** Past this many characters a stream's pending frames go out at once instead of at the end of the tick. */
const FLUSH_CHARACTERS = 64 * 1024;
/** DESIGN §8: a client this far behind is disconnected; it resumes with its last ids. */
export const MAX_BEHIND_BYTES = 4 * 1024 * 1024;
export const MAX_BEHIND_MS = 30_000;

/**
 * Each delivered event's frame, serialized once however many streams send it: the bus hands
 * every subscriber the same object, one subscriber after another, so the last frame made is
 * the one asked for again. Only the last is kept: a cache per event (a WeakMap) would keep every
 * frame alive as long as the bus's replay window holds its event, so each streamed delta's text
 * would survive the young-generation GC three times over and be copied into the old one.
 */
let lastDelivered: object | null = null;
let lastFrame = "";

export function frameOf(delivered: Delivered<{ type: string }>): string {
  if (delivered !== lastDelivered) {
    lastFrame = `id: ${delivered.id}\nevent: ${delivered.event.type}\ndata: ${JSON.stringify(delivered.event)}\n\n`;
    lastDelivered = delivered;
  }
  return lastFrame;
}

/**
 * Open SSE responses in this process (every route); /api/health reports it so tests can count
 * a browser's connections.
 */
export function openStreamCount(): number {
  return streamSlots().total;
}

export interface SseWriter {
  /** Writes raw SSE text (one or more whole frames). */
  write(text: string): void;
  close(): void;
}

/**
 * An SSE response: `start` is called once with a writer and returns the cleanup. A client
 * disconnect only detaches the subscriber; it never cancels work. A loop turn's first frame
 * leaves at once, so a lone delta waits for nothing; the frames written after it in the same
 * turn leave together at its setImmediate: with many turns streaming, the deltas of several
 * model sockets arrive in one poll, and each chunk sent costs a stream write, a socket write
 * and a client wake-up.
 *
 * The stream's high-water mark is 0, so `desiredSize` is minus the bytes the client has not
 * read yet and `pull` runs only when the queue is empty: past 4 MiB queued, or 30 s without
 * catching up, the client is cut off (it reconnects and resumes by event id).
 *
 * A client past its cap of open streams gets `too_many_streams` thrown here, before anything
 * is opened; the stream's slot is given back when it closes, however it closes.
 */
export function sseStream(request: Request, start: (writer: SseWriter) => () => void): Response {
  const releaseSlot = streamSlots().acquire(streamClient(request));
  const encoder = new TextEncoder();
  let cleanup = () => {};
  let behindSince: number | null = null;
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        let open = true;
        let pending = "";
        /** Set from a loop turn's first frame until setImmediate: frames written meanwhile wait in `pending`. */
        let gathering: NodeJS.Immediate | null = null;
        const enqueue = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
            return;
          }
          const queued = -(controller.desiredSize ?? 0);
          if (queued <= 0) return;
          if (queued > MAX_BEHIND_BYTES) return close();
          behindSince ??= Date.now();
          if (Date.now() - behindSince > MAX_BEHIND_MS) close();
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
          if (gathering) {
            pending += text;
            if (pending.length >= FLUSH_CHARACTERS) flushPending();
            return;
          }
          // A loop turn's first frame leaves at once (a lone delta waits for nothing); those after it gather.
          gathering = setImmediate(endGathering);
          enqueue(text);
        };
        const heartbeat = setInterval(() => {
          if (behindSince !== null && Date.now() - behindSince > MAX_BEHIND_MS) return close();
          write(`: keep-alive ${Date.now()}\n\n`);
        }, HEARTBEAT_MS);
        let stop = () => {};
        const close = () => {
          if (!open) return;
          open = false;
          releaseSlot();
          pending = "";
          if (gathering) clearImmediate(gathering);
          gathering = null;
          clearInterval(heartbeat);
          stop();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        cleanup = close;
        request.signal.addEventListener("abort", close, { once: true });
        write(": connected\n\n");
        try {
          stop = start({ write, close });
        } catch (error) {
          // A subscribe that throws leaves no stream open, so its slot is not kept either.
          close();
          throw error;
        }
        if (!open) stop();
      },
      pull() {
        behindSince = null;
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new PlainAnswer(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}

/** An SSE response of one bus subscription: `subscribe` gets `send` and returns the unsubscribe. */
export function sseResponse<Event extends { type: string }>(
  request: Request,
  subscribe: (send: (delivered: Delivered<Event>) => void, end: () => void) => () => void,
): Response {
  return sseStream(request, (writer) => subscribe((delivered) => writer.write(frameOf(delivered)), writer.close));
}

export function lastEventId(request: Request): number | undefined {
  const header = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (!header || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}
