import type { Delivered } from "../events/events";
import { PlainAnswer, type LiveBody } from "./plain-answer";
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

/** Where an event stream's text goes: Node's response, or a web stream. */
interface Outlet {
  /** Sends whole frames. */
  send(text: string): void;
  /** How many bytes the client has not taken yet (0: caught up). */
  queued(): number;
  end(): void;
  /** Ends a client cut off for being too far behind: over HTTP the connection is dropped, with what waited for it. */
  cutOff(): void;
}

/**
 * An SSE response: `start` is called once, at once, with a writer and returns the cleanup. A
 * client disconnect only detaches the subscriber; it never cancels work. A loop turn's first
 * frame leaves at once, so a lone delta waits for nothing; the frames written after it in the
 * same turn leave together at its setImmediate: with many turns streaming, the deltas of
 * several model sockets arrive in one poll, and each chunk sent costs a socket write and a
 * client wake-up. Frames written before the response is sent wait for it.
 *
 * Sent by node-bridge, the text goes straight to Node's response (no web stream, no encoding
 * step); read any other way, through a web stream of high-water mark 0. Either way, a client
 * past 4 MiB behind, or behind for 30 s without catching up, is cut off (it reconnects and
 * resumes by event id).
 *
 * A client past its cap of open streams gets `too_many_streams` thrown here, before anything
 * is opened; the stream's slot is given back when it closes, however it closes.
 */
export function sseStream(request: Request, start: (writer: SseWriter) => () => void): Response {
  const releaseSlot = streamSlots().acquire(streamClient(request));
  let open = true;
  let outlet: Outlet | null = null;
  let pending = "";
  /** Set from a loop turn's first frame until setImmediate: frames written meanwhile wait in `pending`. */
  let gathering: NodeJS.Immediate | null = null;
  let behindSince: number | null = null;
  let stop = () => {};
  let ended = () => {};

  /** Cuts the client off when too far behind or behind too long; `queued`: the bytes it has not taken. */
  const behind = (queued: number) => {
    if (queued <= 0) {
      behindSince = null;
      return;
    }
    if (queued > MAX_BEHIND_BYTES) return close(true);
    behindSince ??= Date.now();
    if (Date.now() - behindSince > MAX_BEHIND_MS) close(true);
  };
  const send = (text: string) => {
    if (!outlet) return behind(pending.length);
    try {
      outlet.send(text);
    } catch {
      return close();
    }
    behind(outlet.queued());
  };
  const flushPending = () => {
    if (!outlet) return behind(pending.length);
    const text = pending;
    pending = "";
    if (open && text !== "") send(text);
  };
  const endGathering = () => {
    gathering = null;
    flushPending();
  };
  const write = (text: string) => {
    if (!open) return;
    if (gathering || !outlet) {
      pending += text;
      if (!outlet) return behind(pending.length);
      if (pending.length >= FLUSH_CHARACTERS) flushPending();
      return;
    }
    gathering = setImmediate(endGathering);
    send(text);
  };
  const heartbeat = setInterval(() => {
    behind(outlet ? outlet.queued() : pending.length);
    write(`: keep-alive ${Date.now()}\n\n`);
  }, HEARTBEAT_MS);
  /** `cut`: the client was too far behind (its connection is dropped, not ended after what waits). */
  function close(cut = false) {
    if (!open) return;
    open = false;
    releaseSlot();
    pending = "";
    if (gathering) clearImmediate(gathering);
    gathering = null;
    clearInterval(heartbeat);
    stop();
    try {
      if (cut) outlet?.cutOff();
      else outlet?.end();
    } catch {
      // already closed by the client
    }
    ended();
  }
  /** Starts sending to `chosen`: what was written before goes first. */
  const attach = (chosen: Outlet) => {
    outlet = chosen;
    if (!open) return chosen.end();
    flushPending();
  };

  request.signal.addEventListener("abort", () => close(), { once: true });
  write(": connected\n\n");
  try {
    stop = start({ write, close: () => close() });
  } catch (error) {
    // A subscribe that throws leaves no stream open, so its slot is not kept either.
    close();
    throw error;
  }
  if (!open) stop();

  const body: LiveBody = {
    live: true,
    sendTo(response) {
      return new Promise<void>((resolve) => {
        ended = resolve;
        response.once("close", () => close());
        attach({
          send(text) {
            if (response.destroyed) throw new Error("the client is gone");
            response.write(text);
          },
          queued: () => response.writableLength,
          end: () => response.end(),
          cutOff: () => response.destroy(),
        });
        if (!open) resolve();
      });
    },
    webStream() {
      const encoder = new TextEncoder();
      return new ReadableStream<Uint8Array<ArrayBuffer>>(
        {
          start(controller) {
            attach({
              send: (text) => controller.enqueue(encoder.encode(text)),
              queued: () => -(controller.desiredSize ?? 0),
              end: () => controller.close(),
              cutOff: () => controller.close(),
            });
          },
          pull() {
            behindSince = null;
          },
          cancel() {
            close();
          },
        },
        { highWaterMark: 0, size: (chunk) => chunk.byteLength },
      );
    },
  };
  return new PlainAnswer(body, {
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
