import type { Agent, IncomingMessage } from "node:http";

/**
 * A `fetch` for the AI SDK's `postJsonToApi` made on node:http: a success answers a Response
 * with no body and keeps the Node stream of its body for `nodeBodyOf`, so the stream model
 * reads the event stream as Node chunks instead of through web streams (and past Next's
 * patched global fetch). A failure answers a Response with the whole body, for the SDK's own
 * error handler. Failures to connect reject as fetch does (`TypeError("fetch failed")` with
 * the cause), an abort with the signal's reason, so the SDK's error mapping is unchanged.
 */
/*
 * Taken without an ESM import: on Node 22+ `import "node:http"` reads every export of the module,
 * and its lazy WebSocket getters load undici and http2 (~35-55 ms on Node 24).
 */
const http = process.getBuiltinModule("node:http");

interface Transport {
  request: typeof http.request;
  agent: Agent;
}

const transports = new Map<string, Transport>();

/**
 * A scheme's module and keep-alive agent, made at its first call: node:https brings TLS with it
 * (about 2.7 MiB of a Node 24 server's RSS), which a server that talks only to a model on plain
 * http never needs. Null for a scheme fetch does not take.
 */
function transportFor(protocol: string): Transport | null {
  if (protocol !== "http:" && protocol !== "https:") return null;
  let transport = transports.get(protocol);
  if (!transport) {
    const module = protocol === "https:" ? process.getBuiltinModule("node:https") : http;
    transport = { request: module.request, agent: new module.Agent({ keepAlive: true }) };
    transports.set(protocol, transport);
  }
  return transport;
}

const bodies = new WeakMap<Response, IncomingMessage>();

/**
 * Node's fetch (undici) gives up on a provider silent this long before its headers, or between
 * two chunks of its body (headersTimeout, bodyTimeout); node:http has no such limit by itself.
 */
export const IDLE_TIMEOUT_MS = 300_000;

/** The errors undici fails with then, by the same codes (the SDK finds the code and retries). */
function idleTimeoutError(answered: boolean): Error {
  const error = new Error(answered ? "Body Timeout Error" : "Headers Timeout Error");
  return Object.assign(error, { name: answered ? "BodyTimeoutError" : "HeadersTimeoutError", code: answered ? "UND_ERR_BODY_TIMEOUT" : "UND_ERR_HEADERS_TIMEOUT" });
}

/** The Node stream of a successful response's body made by `nodeFetch`. */
export function nodeBodyOf(response: Response): IncomingMessage | undefined {
  return bodies.get(response);
}

/** What fetch rejects with when its signal aborts: the signal's reason, else an AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index], raw[index + 1]);
  return headers;
}

function requestHeaders(init: RequestInit | undefined, body: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: "*/*" };
  const given = init?.headers;
  // The SDK hands a plain object its own Headers already checked and lower-cased: copied as is,
  // not through another Headers (a tenth of the request's build).
  if (given && !(given instanceof Headers) && !Array.isArray(given)) {
    for (const [key, value] of Object.entries(given)) if (value !== undefined) headers[key.toLowerCase()] = String(value);
  } else {
    new Headers(given).forEach((value, key) => (headers[key] = value));
  }
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return headers;
}

export function nodeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return fetchWithIdleTimeout(input, init, IDLE_TIMEOUT_MS);
}

/** `nodeFetch` with another idle limit (tests). */
export function fetchWithIdleTimeout(input: string | URL | Request, init: RequestInit | undefined, idleTimeoutMs: number): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const body = typeof init?.body === "string" ? init.body : undefined;
  if (init?.body != null && body === undefined) return Promise.reject(new TypeError("nodeFetch sends string bodies only"));
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const transport = transportFor(url.protocol);
    if (!transport) return reject(new TypeError("fetch failed", { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    let message: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = abortReason(signal!);
      // Before the answer the promise rejects; after it the body's reader gets the reason.
      if (message) message.destroy(reason as Error);
      else request.destroy(reason as Error);
    };
    const request = transport.request(url, { method: init?.method ?? "GET", headers: requestHeaders(init, body), agent: transport.agent }, (answer) => {
      message = answer;
      answer.once("close", () => signal?.removeEventListener("abort", onAbort));
      const status = answer.statusCode ?? 0;
      const headers = responseHeaders(answer);
      if (status >= 200 && status < 300) {
        const response = new Response(null, { status, statusText: answer.statusMessage, headers });
        bodies.set(response, answer);
        return resolve(response);
      }
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.once("error", (error) => reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error })));
      answer.once("end", () => {
        const content = NULL_BODY_STATUS.has(status) ? null : Buffer.concat(chunks);
        resolve(new Response(content, { status, statusText: answer.statusMessage, headers }));
      });
    });
    request.on("error", (error) => {
      if (message) return;
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    // The socket's idle timer: before the answer it is the headers' limit, after it the body's.
    request.setTimeout(idleTimeoutMs, () => {
      if (message) message.destroy(idleTimeoutError(true));
      else request.destroy(idleTimeoutError(false));
    });
    request.end(body);
  });
}
