import { describe, expect, it } from "vitest";
import { assertClusterSecret, ClusterSignatures, NODE_HEADER, SIGNATURE_HEADER, SIGNATURE_WINDOW_MS } from "@/lib/auth/cluster-signature";

const SECRET = "0123456789abcdef0123456789abcdef";
const call = { method: "POST", path: "/api/conversations/01J00000000000000000000000/messages", body: '{"text":"hi","mode":"auto"}' };

function clock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("cluster signatures", () => {
  it("accept a call signed by another node with the same secret, and name that node", () => {
    const time = clock();
    const headers = new ClusterSignatures(SECRET, time.now).sign("node-a", call);
    expect(new ClusterSignatures(SECRET, time.now).check(headers, call)).toEqual({ ok: true, nodeId: "node-a" });
  });

  it("refuse a call whose method, path, body or node was changed, or that was signed with another secret", () => {
    const time = clock();
    const headers = new ClusterSignatures(SECRET, time.now).sign("node-a", call);
    const check = (changed: typeof call, sent = headers) => new ClusterSignatures(SECRET, time.now).check(sent, changed);
    expect(check({ ...call, method: "DELETE" })).toEqual({ ok: false, reason: "bad_signature" });
    expect(check({ ...call, path: `${call.path}?x=1` })).toEqual({ ok: false, reason: "bad_signature" });
    expect(check({ ...call, body: '{"text":"hj","mode":"auto"}' })).toEqual({ ok: false, reason: "bad_signature" });
    expect(check(call, { ...headers, [NODE_HEADER]: "node-b" })).toEqual({ ok: false, reason: "bad_signature" });
    const other = new ClusterSignatures("fedcba9876543210fedcba9876543210", time.now).sign("node-a", call);
    expect(check(call, other)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuse a call replayed, within the window or after it", () => {
    const time = clock();
    const receiver = new ClusterSignatures(SECRET, time.now);
    const headers = new ClusterSignatures(SECRET, time.now).sign("node-a", call);
    expect(receiver.check(headers, call).ok).toBe(true);
    time.advance(1_000);
    expect(receiver.check(headers, call)).toEqual({ ok: false, reason: "replayed" });
    time.advance(SIGNATURE_WINDOW_MS);
    expect(receiver.check(headers, call)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuse unsigned and malformed calls, and a signature from a clock too far ahead", () => {
    const time = clock();
    const receiver = new ClusterSignatures(SECRET, time.now);
    expect(receiver.check({}, call)).toEqual({ ok: false, reason: "unsigned" });
    expect(receiver.check({ [NODE_HEADER]: "node-a", [SIGNATURE_HEADER]: "t=1,s=zz" }, call)).toEqual({ ok: false, reason: "malformed" });
    const ahead = new ClusterSignatures(SECRET, () => time.now() + SIGNATURE_WINDOW_MS + 1).sign("node-a", call);
    expect(receiver.check(ahead, call)).toEqual({ ok: false, reason: "expired" });
  });

  it("keep no nonce longer than two windows after it was seen", () => {
    const time = clock();
    const receiver = new ClusterSignatures(SECRET, time.now);
    const sender = new ClusterSignatures(SECRET, time.now);
    for (let index = 0; index < 100; index += 1) expect(receiver.check(sender.sign("node-a", call), call).ok).toBe(true);
    time.advance(2 * SIGNATURE_WINDOW_MS + 1);
    expect(receiver.check(sender.sign("node-a", call), call).ok).toBe(true);
    expect(receiver.rememberedNonces).toBe(1);
  });

  it("refuse to run with a secret shorter than 32 characters", () => {
    expect(() => assertClusterSecret(undefined)).toThrow(/ATRIUM_CLUSTER_SECRET/);
    expect(() => new ClusterSignatures("short")).toThrow(/at least 32/);
    expect(assertClusterSecret(SECRET)).toBe(SECRET);
  });
});
