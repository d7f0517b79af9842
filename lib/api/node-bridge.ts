import type http from "node:http";
import type net from "node:net";
import type { ApiResolution, RouteHandler } from "./api-router";
import { LINGER_MS } from "./body";
import { NodeRequest } from "./node-request";
import { PlainAnswer } from "./plain-answer";

/**
 * Runs a web route handler (Request in, Response out) on Node's request and response, as
 * Next does for app/api: the body streams in, the answer streams out chunk by chunk (event
 * streams flush per chunk), and `request.signal` aborts when the client goes away, so an SSE
 * route drops its subscriber (a turn is never stopped by it). The request is a NodeRequest and
 * the API's own answers PlainAnswers, so an API client never loads undici; a real Response (a
 * forwarded call's) is written the same way.
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
  const routeRequest = new NodeRequest(request, response, { url: target.url, signal: aborter.signal });
  const hasBody = routeRequest.method !== "GET" && routeRequest.method !== "HEAD";
  let answer: Response;
  try {
    answer = await target.handler(routeRequest, { params: Promise.resolve(target.params) });
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

/** The router's own answers: 404 for a path no route has, OPTIONS, 405. */
export function routerAnswer(resolution: Exclude<ApiResolution, { kind: "handler" }>, method: string, pathname: string): PlainAnswer {
  if (resolution.kind === "not_found") return jsonAnswer(404, "not_found", `no API route at ${pathname}`);
  const allow = resolution.allow.join(", ");
  if (resolution.kind === "options") return new PlainAnswer(null, { status: 204, headers: { allow } });
  const refused = jsonAnswer(405, "bad_request", `${pathname} does not take ${method}; it takes ${allow}`);
  refused.headers.set("allow", allow);
  return refused;
}

function jsonAnswer(status: number, code: string, message: string): PlainAnswer {
  return new PlainAnswer(JSON.stringify({ error: { code, message } }), {
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
  const whole = answer instanceof PlainAnswer ? answer.wholeText() : null;
  if (whole !== null) {
    // A text answer goes out with its length in one write, as answeredWhole below sends a short one.
    if (withoutBody) return void response.end();
    const body = Buffer.from(whole);
    if (!response.hasHeader("content-length")) response.setHeader("content-length", body.byteLength);
    response.end(body);
    return;
  }
  // An event stream of ours writes itself to the response: no web stream, no encoding step, a frame at a time.
  const live = answer instanceof PlainAnswer && !withoutBody ? answer.takeLiveBody() : null;
  if (live) return live.sendTo(response);
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
