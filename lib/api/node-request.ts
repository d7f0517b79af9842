import type http from "node:http";
import { readWhole } from "./body";
import { PlainHeaders } from "./plain-headers";

type Body = ReadableStream<Uint8Array<ArrayBuffer>>;

/**
 * An API request as the route handlers see it (a Request), read from Node's request as it is:
 * headers from `rawHeaders`, the body as a web stream made at its first read. Node's Request is
 * undici's, loaded whole at its first use (about 2.5 MiB of an idle server on Node 24, see
 * PlainHeaders); what a route does with a request (headers, url, signal, its body) needs none of
 * it. What does (`clone`, `formData`, `blob`) gets a real Request made from this one, through
 * which the body is then read.
 */
export class NodeRequest implements Request {
  readonly method: string;
  readonly url: string;
  readonly headers: PlainHeaders;
  readonly signal: AbortSignal;
  readonly cache: RequestCache = "default";
  readonly credentials: RequestCredentials = "same-origin";
  readonly destination: RequestDestination = "";
  readonly integrity = "";
  readonly keepalive = false;
  readonly mode: RequestMode = "cors";
  readonly redirect: RequestRedirect = "follow";
  readonly referrer = "about:client";
  readonly referrerPolicy: ReferrerPolicy = "";
  private stream: Body | null = null;
  private web: Request | null = null;

  constructor(
    private readonly incoming: http.IncomingMessage,
    private readonly response: http.ServerResponse,
    target: { url: string; signal: AbortSignal },
  ) {
    this.method = (incoming.method ?? "GET").toUpperCase();
    this.url = target.url;
    // A header the server took off the request (a proxy's forwarded headers it does not trust) is not the route's to see.
    this.headers = PlainHeaders.fromRaw(incoming.rawHeaders, incoming.headers);
    this.signal = target.signal;
  }

  get body(): Body | null {
    if (this.web) return this.web.body;
    if (this.method === "GET" || this.method === "HEAD") return null;
    this.stream ??= lazyBody(this.incoming, this.response);
    return this.stream;
  }

  get bodyUsed(): boolean {
    return this.web ? this.web.bodyUsed : (this.stream?.locked ?? false);
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.web) return new Uint8Array(await this.web.arrayBuffer());
    const body = this.body;
    if (body === null) return new Uint8Array(0);
    if (body.locked) throw new TypeError("Body is unusable: Body has already been read");
    return readWhole(body);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  blob(): Promise<Blob> {
    return this.toWeb().blob();
  }

  formData(): Promise<FormData> {
    return this.toWeb().formData();
  }

  /** A copy read apart from this one (lib/cluster/node-forward.ts peeks at a body the route then reads). */
  clone(): Request {
    return this.toWeb().clone();
  }

  /** The real Request this one becomes: made once, the body read through it from then on. */
  private toWeb(): Request {
    if (this.web) return this.web;
    const body = this.body;
    this.web = new Request(this.url, {
      method: this.method,
      headers: [...this.headers],
      body,
      signal: this.signal,
      // @ts-expect-error Node's fetch needs `duplex` for a streamed body; the DOM types lack it.
      duplex: "half",
    });
    return this.web;
  }
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
function lazyBody(request: http.IncomingMessage, response: http.ServerResponse): Body {
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
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
            const chunk = request.read() as Buffer<ArrayBuffer> | null;
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
