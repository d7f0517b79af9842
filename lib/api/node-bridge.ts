import type http from "node:http";
import type net from "node:net";
import type { ApiResolution, RouteHandler } from "./api-router";
import { LINGER_MS } from "./body";

/**
 * Runs a web route handler (Request in, Response out) on Node's request and response, as
 * Next does for app/api: the body streams in, the answer streams out chunk by chunk (event
 * streams flush per chunk), and `request.signal` aborts when the client goes away, so an SSE
 * route drops its subscriber (a turn is never stopped by it).
 */
export async function serveWebHandler(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  target: { url: string; handler: RouteHandler; params: Record<string, string>; withoutBody: boolean },
): Promise<void> {
  const aborter = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) aborter.abort();
  });
  const method = (request.method ?? "GET").toUpperCase();
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index], raw[index + 1]);
  const hasBody = method !== "GET" && method !== "HEAD";
  const webRequest = new Request(target.url, {
    method,
    headers,
    body: hasBody ? lazyBody(request, response) : undefined,
    signal: aborter.signal,
    // @ts-expect-error Node's fetch needs `duplex` for a streamed body; the DOM types lack it.
    duplex: "half",
  });
  let answer: Response;
  try {
    answer = await target.handler(webRequest, { params: Promise.resolve(target.params) });
  } catch (error) {
    console.error("unexpected error in request", error);
    answer = jsonAnswer(500, "internal_error", "Something went wrong inside Atrium; see the server log.");
  }
  if (hasBody && !request.complete) lingerBeforeClose(request.socket);
  await writeAnswer(response, answer, target.withoutBody);
}

/**
 * An answer sent before its request's body was all read (a 413 part way, a 401 before reading)
 * on a connection that then closes: Node's server would close the socket as soon as the answer
 * is written, and a close with the client's bytes still arriving resets the connection, which
 * can erase the answer from the client's buffers before it is read (the client sees EPIPE).
 * So the close lingers (RFC 9112 §9.6): the answer goes out with a FIN, the rest of the body is
 * read and dropped, and the socket closes when the client has stopped or `LINGER_MS` passed.
 */
function lingerBeforeClose(socket: net.Socket): void {
  socket.destroySoon = function lingeringClose(this: net.Socket) {
    if (this.writable) this.end();
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    this.once("end", close);
    this.once("close", () => clearTimeout(timer));
  };
}

/**
 * The request body as a web stream that reads nothing until the handler reads it. A body left
 * unread (a 413 refused by its declared length, a route that takes none) is then drained by
 * Node when the answer is done and the connection is kept; a stream that had already pulled
 * from the socket would leave the rest of the body to be parsed as the next request. A body
 * refused part way (cancelled: over its limit) is read on and dropped until the answer has gone
 * out on a connection that is then closed: cutting the socket at once could reach the client
 * before the answer did.
 */
function lazyBody(request: http.IncomingMessage, response: http.ServerResponse): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve, reject) => {
          const done = () => {
            request.off("readable", next);
            request.off("end", onEnd);
            request.off("error", onError);
            resolve();
          };
          const next = () => {
            const chunk = request.read() as Buffer | null;
            if (chunk !== null) {
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              done();
            } else if (request.readableEnded) onEnd();
          };
          const onEnd = () => {
            controller.close();
            done();
          };
          const onError = (error: Error) => {
            done();
            reject(error);
          };
          request.on("readable", next);
          request.once("end", onEnd);
          request.once("error", onError);
          next();
        });
      },
      cancel() {
        if (!response.headersSent) response.setHeader("connection", "close");
        request.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The router's own answers: 404 for a path no route has, OPTIONS, 405. */
export function routerAnswer(resolution: Exclude<ApiResolution, { kind: "handler" }>, method: string, pathname: string): Response {
  if (resolution.kind === "not_found") return jsonAnswer(404, "not_found", `no API route at ${pathname}`);
  const allow = resolution.allow.join(", ");
  if (resolution.kind === "options") return new Response(null, { status: 204, headers: { allow } });
  const refused = jsonAnswer(405, "bad_request", `${pathname} does not take ${method}; it takes ${allow}`);
  refused.headers.set("allow", allow);
  return refused;
}

function jsonAnswer(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

export async function writeAnswer(response: http.ServerResponse, answer: Response, withoutBody: boolean): Promise<void> {
  if (response.destroyed) {
    await answer.body?.cancel().catch(() => undefined);
    return;
  }
  response.statusCode = answer.status;
  for (const [name, value] of answer.headers) {
    if (name !== "set-cookie") response.setHeader(name, value);
  }
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);
  if (!answer.body || withoutBody) {
    await answer.body?.cancel().catch(() => undefined);
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  response.once("close", stop);
  try {
    // A small answer (a JSON document) goes out whole, headers and body in one write; an event stream chunk by chunk.
    const streamed = answer.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
    if (!streamed && (await answeredWhole(response, reader))) return;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (response.destroyed) return;
      if (!response.write(value)) await drained(response);
    }
    response.end();
  } catch (error) {
    // The body failed after the status went out: all that is left is to cut the connection.
    if (!response.destroyed) console.error("an API answer failed while it was being sent", error);
    response.destroy();
  } finally {
    response.off("close", stop);
  }
}

/** Up to this much of an answer that is not an event stream is gathered before anything is written. */
const WHOLE_ANSWER_BYTES = 64 * 1024;

/**
 * Reads the body until it ends or passes WHOLE_ANSWER_BYTES. Ended: written with its length in one
 * `end` (one socket write, no chunked framing), answering true. Longer: what was read is written
 * and the caller streams the rest.
 */
async function answeredWhole(response: http.ServerResponse, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (bytes <= WHOLE_ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (response.destroyed) return true;
    if (done) {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      if (!response.hasHeader("content-length")) response.setHeader("content-length", body.byteLength);
      response.end(body);
      return true;
    }
    chunks.push(value);
    bytes += value.byteLength;
  }
  for (const chunk of chunks) if (!response.write(chunk)) await drained(response);
  return false;
}

function drained(response: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.once("drain", done);
    response.once("close", done);
  });
}
