import { describe, expect, it } from "vitest";
import { isClientHangUp, QuietRejections } from "@/lib/api/quiet-rejections";

describe("quiet rejections", () => {
  it("log the first of a kind, count the rest, and summarize at most once a minute", () => {
    const lines: string[] = [];
    let now = 0;
    const counter = new QuietRejections((line) => lines.push(line), () => now);
    for (let index = 0; index < 500; index += 1) counter.count("webhook_signature");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("1 since the last note (1 in all)");
    now = 59_999;
    counter.count("webhook_signature");
    expect(lines).toHaveLength(1);
    now = 60_000;
    counter.count("webhook_signature");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("501 since the last note (502 in all)");
    counter.count("client_hung_up");
    expect(lines).toHaveLength(3);
    expect(counter.total("webhook_signature")).toBe(502);
  });

  it("tell a client hang-up from Atrium's own errors", () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(isClientHangUp(new Error("anything"), new Request("http://x/", { signal: aborted.signal }))).toBe(true);
    expect(isClientHangUp(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), undefined)).toBe(true);
    expect(isClientHangUp(new Error("aborted"), undefined)).toBe(true);
    expect(isClientHangUp(new TypeError("Cannot read properties of undefined"), new Request("http://x/"))).toBe(false);
  });
});
