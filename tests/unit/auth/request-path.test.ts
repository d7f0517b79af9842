import { describe, expect, it } from "vitest";
import { exposureWarning } from "@/lib/auth/exposure-warning";
import { gate } from "@/lib/auth/gate";
import { normalizeRequestPath } from "@/lib/auth/request-path";

const TOKEN = "unit-token";
const SESSION_ID = "a-live-session-id";
const COOKIE = `atrium_session=${SESSION_ID}`;
const AUTH = { token: TOKEN, sessions: { verify: (id: string) => id === SESSION_ID } };

describe("normalizeRequestPath", () => {
  it.each([
    ["/", "/"],
    ["/c/01JAAAAAAAAAAAAAAAAAAAAAAA?x=1", "/c/01JAAAAAAAAAAAAAAAAAAAAAAA"],
    ["/auth/../c/1", "/c/1"],
    ["/auth/%2e%2e/c/1", "/c/1"],
    ["/auth/.%2E/c/1", "/c/1"],
    ["/_next/static/../../archive", "/archive"],
    ["/signin/../", "/"],
    ["/auth/..", "/"],
    ["/./approvals", "/approvals"],
    ["/signin/.", "/signin/"],
    ["/%61pi/health", "/api/health"],
  ])("%s is routed as %s", (raw, expected) => {
    expect(normalizeRequestPath(raw)).toEqual({ ok: true, pathname: expected });
  });

  it.each(["/auth/..%2fc/1", "/auth/..%2Fc/1", "/signin/..%5cc", "/a\\b", "//c/1", "/auth/%252e%252e/c", "/..", "/auth/../../c", "/%E0%A4%A", "/a%00b", "c/1", "http://evil/c/1"])(
    "%s is refused as ambiguous",
    (raw) => {
      expect(normalizeRequestPath(raw).ok).toBe(false);
    },
  );
});

describe("gate", () => {
  const request = (method: string, url: string, headers: Record<string, string> = {}, trustProxy = false) =>
    gate({ method, url, headers: { host: "127.0.0.1:3000", ...headers } }, { ...AUTH, trustProxy });

  it("lets the public paths through and nothing that merely starts like them", () => {
    for (const url of ["/signin", "/signin?token=x", "/auth/signin", "/_next/static/chunks/a.js", "/icon.svg", "/api/webhooks/github"]) {
      expect(request("GET", url).kind, url).toBe("pass");
    }
    expect(request("GET", "/auth/../c/1")).toEqual({ kind: "redirect", location: "/signin" });
    expect(request("GET", "/signin/../api/conversations")).toMatchObject({ kind: "refuse", status: 401 });
    expect(request("GET", "/api/webhooks/../conversations")).toMatchObject({ kind: "refuse", status: 401 });
    expect(request("GET", "/auth/..%2fc/1")).toMatchObject({ kind: "refuse", status: 400 });
  });

  it("refuses cookie writes from another origin and lets same-origin and Bearer writes through", () => {
    expect(request("POST", "/api/conversations", { cookie: COOKIE, origin: "http://127.0.0.1:8080" })).toMatchObject({ status: 403, code: "forbidden" });
    expect(request("POST", "/api/conversations", { cookie: COOKIE })).toMatchObject({ status: 403 });
    expect(request("DELETE", "/api/conversations/1", { cookie: COOKIE, "sec-fetch-site": "same-site", origin: "http://127.0.0.1:3000" })).toMatchObject({ status: 403 });
    expect(request("POST", "/api/conversations", { cookie: COOKIE, origin: "http://127.0.0.1:3000" }).kind).toBe("pass");
    expect(request("PATCH", "/api/conversations/1", { cookie: COOKIE, "sec-fetch-site": "same-origin" }).kind).toBe("pass");
    const forwarded = { cookie: COOKIE, origin: "https://atrium.example", "x-forwarded-host": "atrium.example", "x-forwarded-proto": "https" };
    expect(request("POST", "/api/conversations", forwarded, true).kind).toBe("pass");
    // Without trustProxy anyone could send X-Forwarded-Host to match their own Origin.
    expect(request("POST", "/api/conversations", forwarded)).toMatchObject({ status: 403 });
    expect(request("POST", "/api/conversations", { cookie: COOKIE, origin: "http://evil.test", "x-forwarded-host": "evil.test" })).toMatchObject({ status: 403 });
    expect(request("POST", "/api/conversations", { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" }).kind).toBe("pass");
    expect(request("GET", "/api/conversations", { cookie: COOKIE, origin: "http://127.0.0.1:8080" }).kind).toBe("pass");
  });

  it("a cookie that names no live session is no credential", () => {
    expect(request("GET", "/api/conversations", { cookie: "atrium_session=ended-session" })).toMatchObject({ status: 401 });
    expect(request("GET", "/api/conversations", { cookie: COOKIE }).kind).toBe("pass");
  });
});

describe("exposureWarning", () => {
  it("says nothing on loopback and warns, pointing at a TLS proxy, on any other address", () => {
    for (const host of ["127.0.0.1", "::1", "localhost", "127.0.0.2"]) expect(exposureWarning(host), host).toBeNull();
    for (const host of ["0.0.0.0", "::", "192.168.1.10"]) expect(exposureWarning(host), host).toContain("TLS reverse proxy");
  });
});
