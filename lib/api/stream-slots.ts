import crypto from "node:crypto";
import { readCookie } from "../auth/session";
import { SESSION_COOKIE } from "../auth/token";
import { AtriumError } from "../errors";

/**
 * DESIGN §10 Limits: open event streams per client and in all. A browser holds one stream
 * however many tabs it has (§8), the CLI one per chat, so 32 is far above honest use while
 * 8,000 streams cost the server half a gigabyte.
 */
export const MAX_STREAMS_PER_CLIENT = 32;
export const MAX_STREAMS_TOTAL = 1000;

export interface StreamLimits {
  perClient: number;
  total: number;
}

/** Open streams by client, and a way to take and give back a slot. */
export class StreamSlots {
  private readonly byClient = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: StreamLimits = { perClient: MAX_STREAMS_PER_CLIENT, total: MAX_STREAMS_TOTAL }) {}

  get total(): number {
    return this.open;
  }

  count(client: string): number {
    return this.byClient.get(client) ?? 0;
  }

  /** Takes a slot for `client` or throws `too_many_streams`; the returned release gives it back once, however often it is called. */
  acquire(client: string): () => void {
    const held = this.count(client);
    if (held >= this.limits.perClient) {
      throw new AtriumError(
        "too_many_streams",
        `This client already has ${held} event streams open (at most ${this.limits.perClient}). Close one, or share one stream between tabs, then try again.`,
        { details: { limit: this.limits.perClient } },
      );
    }
    if (this.open >= this.limits.total) {
      throw new AtriumError("too_many_streams", `The server has ${this.open} event streams open (at most ${this.limits.total}). Try again later.`, {
        details: { limit: this.limits.total },
      });
    }
    this.byClient.set(client, held + 1);
    this.open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      const left = this.count(client) - 1;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
  }
}

/** On globalThis: Next bundles this module more than once and every copy must count the same streams. */
const SLOTS = Symbol.for("atrium.streamSlots");
export function streamSlots(): StreamSlots {
  const holder = globalThis as { [SLOTS]?: StreamSlots };
  holder[SLOTS] ??= new StreamSlots();
  return holder[SLOTS];
}

/**
 * Who a stream belongs to: the credential it was opened with (the route checked it already),
 * hashed so no token is kept in memory twice. A bearer token and a browser session are
 * different clients; every loopback client has the same address, so the address says nothing.
 */
export function streamClient(request: Request): string {
  const authorization = request.headers.get("authorization") ?? "";
  if (authorization.startsWith("Bearer ")) return `bearer:${digest(authorization.slice(7).trim())}`;
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (cookie !== null) return `cookie:${digest(cookie)}`;
  return "anonymous";
}

function digest(value: string): string {
  return crypto.createHash("sha256").update(value).digest("base64url").slice(0, 22);
}
