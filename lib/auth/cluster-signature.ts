import crypto from "node:crypto";

/** Headers of a call one node makes to another (DESIGN §10c, ATRIUM_CLUSTER_SECRET). */
export const NODE_HEADER = "x-atrium-node";
export const SIGNATURE_HEADER = "x-atrium-node-signature";

/** A signature older or newer than this (either node's clock) is refused. */
export const SIGNATURE_WINDOW_MS = 30_000;
/** The secret must be long enough not to be guessed: 32 characters (e.g. `openssl rand -hex 16`). */
export const MIN_SECRET_LENGTH = 32;

export interface NodeCall {
  method: string;
  /** Path and query, exactly as sent (`/api/conversations/…?x=1`). */
  path: string;
  body: Buffer | string;
}

export type NodeCallCheck =
  | { ok: true; nodeId: string }
  | { ok: false; reason: "unsigned" | "malformed" | "expired" | "bad_signature" | "replayed" };

/** ATRIUM_CLUSTER_SECRET checked at start: a node never runs with a guessable one. */
export function assertClusterSecret(secret: string | undefined): string {
  if (!secret || secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`ATRIUM_CLUSTER_SECRET must be set to at least ${MIN_SECRET_LENGTH} characters in cluster mode (e.g. openssl rand -hex 16)`);
  }
  return secret;
}

/**
 * Signs and checks calls between nodes: an HMAC-SHA256 with the cluster secret over the calling
 * node, the time, a nonce, the method, the path and a hash of the body, so a call cannot be
 * changed, replayed after SIGNATURE_WINDOW_MS, or replayed within it (nonces seen are kept for
 * the window), and a request from outside the cluster cannot pass for one.
 */
export class ClusterSignatures {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {
    assertClusterSecret(secret);
  }

  /** How many nonces are kept against replays now (bounded by the calls of two windows). */
  get rememberedNonces(): number {
    return this.seen.size;
  }

  /** The headers to send with a call from `nodeId`. */
  sign(nodeId: string, call: NodeCall): Record<string, string> {
    const at = this.now();
    const nonce = crypto.randomBytes(12).toString("hex");
    return { [NODE_HEADER]: nodeId, [SIGNATURE_HEADER]: `t=${at},n=${nonce},s=${this.mac(nodeId, at, nonce, call)}` };
  }

  /** Whether a call carries a valid signature; on success the calling node's id. */
  check(headers: Record<string, string | undefined>, call: NodeCall): NodeCallCheck {
    const nodeId = headers[NODE_HEADER];
    const signature = headers[SIGNATURE_HEADER];
    if (!nodeId && !signature) return { ok: false, reason: "unsigned" };
    const parts = /^t=(\d{1,16}),n=([0-9a-f]{24}),s=([0-9a-f]{64})$/.exec(signature ?? "");
    if (!nodeId || !parts) return { ok: false, reason: "malformed" };
    const at = Number(parts[1]);
    const now = this.now();
    if (Math.abs(now - at) > SIGNATURE_WINDOW_MS) return { ok: false, reason: "expired" };
    const expected = Buffer.from(this.mac(nodeId, at, parts[2]!, call), "hex");
    if (!crypto.timingSafeEqual(expected, Buffer.from(parts[3]!, "hex"))) return { ok: false, reason: "bad_signature" };
    this.forgetOld(now);
    if (this.seen.has(parts[2]!)) return { ok: false, reason: "replayed" };
    this.seen.set(parts[2]!, now);
    return { ok: true, nodeId };
  }

  private mac(nodeId: string, at: number, nonce: string, call: NodeCall): string {
    const bodyHash = crypto.createHash("sha256").update(call.body).digest("hex");
    // Length-prefixed parts: no two different calls give the same message.
    const parts = [nodeId, String(at), nonce, call.method.toUpperCase(), call.path, bodyHash];
    const message = parts.map((part) => `${Buffer.byteLength(part)}:${part}`).join("");
    return crypto.createHmac("sha256", this.secret).update(message).digest("hex");
  }

  /**
   * A nonce first seen at `seenAt` can come back valid until its signature's time plus the window,
   * at most two windows after `seenAt`: kept that long. Kept in the order seen, so the oldest go first.
   */
  private forgetOld(now: number): void {
    for (const [nonce, seenAt] of this.seen) {
      if (now - seenAt <= 2 * SIGNATURE_WINDOW_MS) return;
      this.seen.delete(nonce);
    }
  }
}
