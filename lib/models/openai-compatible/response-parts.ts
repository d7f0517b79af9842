import type http from "node:http";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createParser } from "eventsource-parser";
import type { PartSink } from "../pushed-parts";
import type { ChunkMapper, ParsedChunk } from "./chunk-parts";
import { bodyReadError, type ResponseContext } from "./network-error";

/** Parts waiting for a slow reader past which the body pauses; also the web stream's high-water mark. */
const PART_QUEUE = 64;

type Entry = { kind: "part"; part: LanguageModelV3StreamPart } | { kind: "end" } | { kind: "fail"; error: unknown };

export interface ResponsePartsOptions {
  message: http.IncomingMessage;
  context: ResponseContext;
  mapperFor: (emit: (part: LanguageModelV3StreamPart) => void) => ChunkMapper;
  /** One data field of the event stream, parsed and checked; a promise only when zod has to look. */
  parse: (data: string) => ParsedChunk | Promise<ParsedChunk>;
}

/**
 * The parts of one response body, for one reader: pushed to a sink or read from a web stream,
 * whichever is asked first; the body is not read before. Chunks are parsed and mapped in the
 * socket's data callback, in order: one that needs zod's (asynchronous) check holds the ones
 * after it until it is done. Parts go to the reader through a FIFO: a part the reader answers
 * with a promise holds the ones after it, and the body pauses while PART_QUEUE parts wait.
 */
export class ResponseParts {
  private taken = false;
  /** The body's error before a reader came: kept for it (an 'error' nobody listens to would crash the process). */
  private early: { error: Error } | null = null;
  private readonly keepEarly = (error: Error) => (this.early = { error });

  constructor(private readonly options: ResponsePartsOptions) {
    options.message.once("error", this.keepEarly);
  }

  push(sink: PartSink): () => void {
    if (this.taken) throw new Error("this response's parts are already being read");
    this.taken = true;
    const { message, context, mapperFor, parse } = this.options;
    message.off("error", this.keepEarly);
    const queue: Entry[] = [];
    /** The reader's last part answered a promise that has not settled. */
    let holding = false;
    /** `end` or `fail` was queued (or the reader stopped): nothing more is queued. */
    let closed = false;
    /** `end` or `fail` was delivered (or the reader stopped): nothing more is delivered. */
    let over = false;

    const drain = () => {
      while (!holding && !over && queue.length > 0) {
        const entry = queue.shift()!;
        if (entry.kind !== "part") {
          over = true;
          return entry.kind === "end" ? sink.end() : sink.fail(entry.error);
        }
        const pending = sink.part(entry.part);
        if (pending) {
          holding = true;
          void pending.then(() => {
            holding = false;
            drain();
          });
          return;
        }
      }
      if (!over && queue.length < PART_QUEUE && message.isPaused()) message.resume();
    };
    const enqueue = (entry: Entry) => {
      if (closed) return;
      if (entry.kind !== "part") closed = true;
      queue.push(entry);
      if (queue.length >= PART_QUEUE) message.pause();
      drain();
    };
    const fail = (error: unknown) => {
      if (closed) return;
      enqueue({ kind: "fail", error });
      message.destroy();
    };

    const mapper = mapperFor((part) => enqueue({ kind: "part", part }));
    let waiting: Promise<void> | null = null;
    /** Runs `step` after the steps before it (a zod check is asynchronous); a step that throws fails the response. */
    const inOrder = (step: () => void | Promise<void>) => {
      if (closed) return;
      let run: void | Promise<void>;
      try {
        run = waiting ? waiting.then(step) : step();
      } catch (error) {
        return fail(error);
      }
      if (!run) return;
      const settled: Promise<void> = run.then(
        () => {
          if (waiting === settled) waiting = null;
        },
        (error: unknown) => fail(error),
      );
      waiting = settled;
    };
    const parser = createParser({
      onEvent: ({ data }) => {
        if (data === "[DONE]") return;
        inOrder(() => {
          const parsed = parse(data);
          if (!(parsed instanceof Promise)) return mapper.chunk(parsed);
          return parsed.then((chunk) => mapper.chunk(chunk));
        });
      },
    });
    message.setEncoding("utf8");
    message.on("data", (text: string) => {
      try {
        parser.feed(text);
      } catch (error) {
        fail(error);
      }
    });
    message.once("end", () =>
      inOrder(() => {
        mapper.end();
        enqueue({ kind: "end" });
      }),
    );
    const failRead = (error: Error) => inOrder(() => fail(bodyReadError(error, context)));
    if (this.early) failRead(this.early.error);
    else message.once("error", failRead);
    return () => {
      closed = true;
      over = true;
      queue.length = 0;
      message.destroy();
    };
  }

  /** The parts as a web stream (what LanguageModelV3 promises): read as the reader pulls, an error after the parts before it. */
  stream(): ReadableStream<LanguageModelV3StreamPart> {
    let stop = () => {};
    let wake: (() => void) | null = null;
    let failure: { error: unknown } | null = null;
    let sendFailure = () => {};
    return new ReadableStream<LanguageModelV3StreamPart>(
      {
        start: (controller) => {
          // Erroring a stream throws its queue away: the error waits for the parts before it to be read.
          sendFailure = () => {
            if (failure && controller.desiredSize === PART_QUEUE) controller.error(failure.error);
          };
          stop = this.push({
            part(part) {
              controller.enqueue(part);
              if ((controller.desiredSize ?? 1) > 0) return;
              return new Promise<void>((resolve) => (wake = resolve));
            },
            end: () => controller.close(),
            fail(error) {
              failure = { error };
              sendFailure();
            },
          });
        },
        pull() {
          sendFailure();
          const resume = wake;
          wake = null;
          resume?.();
        },
        cancel() {
          stop();
        },
      },
      { highWaterMark: PART_QUEUE },
    );
  }
}
