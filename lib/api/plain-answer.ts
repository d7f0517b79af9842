import type http from "node:http";
import { readWhole } from "./body";
import { PlainHeaders } from "./plain-headers";

/**
 * A body written as it happens (an event stream): node-bridge hands it Node's response and it
 * writes there itself; any other reader gets it as a web stream. One or the other, once.
 */
export interface LiveBody {
  readonly live: true;
  /** Writes the body to `response` from now on; settles when it has ended, by either side. */
  sendTo(response: http.ServerResponse): Promise<void>;
  webStream(): ReadableStream<Uint8Array<ArrayBuffer>>;
}

type Content = string | ReadableStream<Uint8Array<ArrayBuffer>> | LiveBody | null;

function isLive(content: Content): content is LiveBody {
  return typeof content === "object" && content !== null && "live" in content;
}

const encoder = new TextEncoder();
/** Statuses the fetch standard gives no body (a Response refuses one with them). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The API's own answers (a JSON document, an event stream, an empty 204) as a Response that
 * lib/api/node-bridge.ts writes straight to Node's response: a text answer goes out in one
 * write, without a web stream in between, and without loading undici, whose first use costs an
 * idle server about 2.5 MiB on Node 24 (see PlainHeaders). Anything else a Response can do
 * (blob, formData) goes through a real one made from it.
 */
export class PlainAnswer implements Response {
  readonly status: number;
  readonly statusText = "";
  readonly headers: PlainHeaders;
  readonly redirected = false;
  readonly type: ResponseType = "default";
  readonly url = "";
  private content: Content;
  private used = false;

  constructor(content: Content, init: { status?: number; headers?: Record<string, string> | PlainHeaders } = {}) {
    const status = init.status ?? 200;
    // What the Response constructor refuses, refused alike: a status it cannot send, a body it must not.
    if (status < 200 || status > 599) throw new RangeError(`PlainAnswer: status ${status} is outside 200-599`);
    if (content !== null && NULL_BODY_STATUSES.has(status)) throw new TypeError(`PlainAnswer: a ${status} answer has no body`);
    this.content = content;
    this.status = status;
    this.headers = init.headers instanceof PlainHeaders ? init.headers : new PlainHeaders(init.headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  /** The whole text when the answer is one, not yet read (node-bridge writes it at once); else null. */
  wholeText(): string | null {
    return typeof this.content === "string" && !this.used ? this.content : null;
  }

  /** The live body when it is not read yet, taken: node-bridge sends it to Node's response without a web stream. */
  takeLiveBody(): LiveBody | null {
    if (!isLive(this.content) || this.used) return null;
    this.used = true;
    return this.content;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (typeof this.content === "string") this.content = streamOf(this.content);
    else if (isLive(this.content)) this.content = this.content.webStream();
    return this.content;
  }

  get bodyUsed(): boolean {
    return this.used || (this.content instanceof ReadableStream && this.content.locked);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    const content = this.content;
    if (content === null) return new Uint8Array(0);
    if (typeof content === "string") return encoder.encode(content);
    return readWhole(isLive(content) ? content.webStream() : content);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  blob(): Promise<Blob> {
    return this.toWeb().blob();
  }

  formData(): Promise<FormData> {
    return this.toWeb().formData();
  }

  clone(): PlainAnswer {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    if (isLive(this.content)) this.content = this.content.webStream();
    let copy: Content = this.content;
    if (this.content instanceof ReadableStream) [this.content, copy] = this.content.tee();
    return new PlainAnswer(copy, { status: this.status, headers: new PlainHeaders(this.headers) });
  }

  /** A real Response with this one's status, headers and body (the body is then read through it). */
  private toWeb(): Response {
    const body = this.body;
    this.used = true;
    return new Response(body, { status: this.status, headers: [...this.headers] });
  }
}

function streamOf(text: string): ReadableStream<Uint8Array<ArrayBuffer>> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode(text));
      controller.close();
    },
  });
}
