import type http from "node:http";
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
  const stream = new EventStream(streamSlots().acquire(streamClient(request)));
  request.signal.addEventListener("abort", () => stream.close(), { once: true });
  stream.begin(start);
  return new PlainAnswer(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}

/** One open event stream: its frames, where they go, and how far behind its client is. */
class EventStream implements LiveBody {
  readonly live = true;
  private open = true;
  private outlet: Outlet | null = null;
  private pending = "";
  /** Set from a loop turn's first frame until setImmediate: frames written meanwhile wait in `pending`. */
  private gathering: NodeJS.Immediate | null = null;
  private behindSince: number | null = null;
  private stop = () => {};
  private ended = () => {};
  private readonly heartbeat = setInterval(() => {
    this.behind(this.outlet ? this.outlet.queued() : this.pending.length);
    this.write(`: keep-alive ${Date.now()}\n\n`);
  }, HEARTBEAT_MS);

  constructor(private readonly releaseSlot: () => void) {}

  begin(start: (writer: SseWriter) => () => void): void {
    this.write(": connected\n\n");
    try {
      this.stop = start({ write: (text) => this.write(text), close: () => this.close() });
    } catch (error) {
      // A subscribe that throws leaves no stream open, so its slot is not kept either.
      this.close();
      throw error;
    }
    if (!this.open) this.stop();
  }

  write(text: string): void {
    if (!this.open) return;
    if (this.gathering || !this.outlet) {
      this.pending += text;
      if (!this.outlet) return this.behind(this.pending.length);
      if (this.pending.length >= FLUSH_CHARACTERS) this.flushPending();
      return;
    }
    this.gathering = setImmediate(() => {
      this.gathering = null;
      this.flushPending();
    });
    this.send(text);
  }

  /** `cut`: the client was too far behind (its connection is dropped, not ended after what waits). */
  close(cut = false): void {
    if (!this.open) return;
    this.open = false;
    this.releaseSlot();
    this.pending = "";
    if (this.gathering) clearImmediate(this.gathering);
    this.gathering = null;
    clearInterval(this.heartbeat);
    this.stop();
    try {
      if (cut) this.outlet?.cutOff();
      else this.outlet?.end();
    } catch {
      // already closed by the client
    }
    this.ended();
  }

  sendTo(response: http.ServerResponse): Promise<void> {
    return new Promise<void>((resolve) => {
      this.ended = resolve;
      response.once("close", () => this.close());
      this.attach({
        send(text) {
          if (response.destroyed) throw new Error("the client is gone");
          response.write(text);
        },
        queued: () => response.writableLength,
        end: () => response.end(),
        cutOff: () => response.destroy(),
      });
      if (!this.open) resolve();
    });
  }

  webStream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const encoder = new TextEncoder();
    return new ReadableStream<Uint8Array<ArrayBuffer>>(
      {
        start: (controller) =>
          this.attach({
            send: (text) => controller.enqueue(encoder.encode(text)),
            queued: () => -(controller.desiredSize ?? 0),
            end: () => controller.close(),
            cutOff: () => controller.close(),
          }),
        pull: () => {
          this.behindSince = null;
        },
        cancel: () => this.close(),
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }

  /** Starts sending to `outlet`: what was written before goes first. */
  private attach(outlet: Outlet): void {
    this.outlet = outlet;
    if (!this.open) return outlet.end();
    this.flushPending();
  }

  /** Called with an outlet attached (write and flushPending keep frames in `pending` until then). */
  private send(text: string): void {
    const outlet = this.outlet!;
    try {
      outlet.send(text);
    } catch {
      return this.close();
    }
    this.behind(outlet.queued());
  }

  private flushPending(): void {
    if (!this.outlet) return this.behind(this.pending.length);
    const text = this.pending;
    this.pending = "";
    if (this.open && text !== "") this.send(text);
  }

  /** Cuts the client off when too far behind or behind too long; `queued`: the bytes it has not taken. */
  private behind(queued: number): void {
    if (queued <= 0) {
      this.behindSince = null;
      return;
    }
    if (queued > MAX_BEHIND_BYTES) return this.close(true);
    this.behindSince ??= Date.now();
    if (Date.now() - this.behindSince > MAX_BEHIND_MS) this.close(true);
  }
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
