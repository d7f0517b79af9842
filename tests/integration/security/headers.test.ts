import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../server";
import { rawRequest, type RawAnswer } from "../../support/raw-http";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

/** DESIGN §10: every answer carries nosniff and Referrer-Policy; pages refuse to be framed (issue 21, finding 2). */

function expectCommon(answer: RawAnswer): void {
  expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  expect(answer.headers["referrer-policy"]).toBe("no-referrer");
}

function expectPage(answer: RawAnswer): void {
  expectCommon(answer);
  expect(answer.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(answer.headers["x-frame-options"]).toBe("DENY");
}

describe("security headers from the real server", () => {
  let server: ServerProcess;
  let cleanup: () => void;
  const bearer = { authorization: `Bearer ${TEST_TOKEN}` };

  beforeAll(async () => {
    const temp = makeTempHome();
    cleanup = temp.cleanup;
    server = await startServerProcess(temp.home);
  });
  afterAll(async () => {
    await server?.stop();
    cleanup?.();
  });

  it("a page is not frameable, and its CSP leaves Next's inline scripts alone", async () => {
    const page = await rawRequest(server.url, "/signin");
    expect(page.status).toBe(200);
    expectPage(page);
    expect(page.headers["content-security-policy"]).not.toMatch(/script-src|default-src/);
    const settings = await rawRequest(server.url, "/settings", { headers: bearer });
    expectPage(settings);
  });

  it("an API 200 and an API 4xx carry nosniff and Referrer-Policy", async () => {
    const ok = await rawRequest(server.url, "/api/conversations", { headers: bearer });
    expect(ok.status).toBe(200);
    expectCommon(ok);
    const notFound = await rawRequest(server.url, "/api/conversations/01JAAAAAAAAAAAAAAAAAAAAAAA", { headers: bearer });
    expect(notFound.status).toBe(404);
    expectCommon(notFound);
    const badQuery = await rawRequest(server.url, "/api/conversations?limit=abc", { headers: bearer });
    expect(badQuery.status).toBe(400);
    expectCommon(badQuery);
  });

  it("the gate's own 401, 400 and redirect, and the sign-in 303s, carry them too", async () => {
    const unauthorized = await rawRequest(server.url, "/api/conversations");
    expect(unauthorized.status).toBe(401);
    expectCommon(unauthorized);
    const malformed = await rawRequest(server.url, "/api/%2e%2e%2fx");
    expect(malformed.status).toBe(400);
    expectCommon(malformed);
    const redirect = await rawRequest(server.url, "/settings");
    expect([302, 303, 307]).toContain(redirect.status);
    expectPage(redirect);
    const wrong = await rawRequest(server.url, "/auth/signin?token=not-the-token");
    expect(wrong.status).toBe(303);
    expectPage(wrong);
    const right = await rawRequest(server.url, `/auth/signin?token=${TEST_TOKEN}`);
    expect(right.status).toBe(303);
    expect(right.headers["set-cookie"]).toBeDefined();
    expectPage(right);
  });
});

describe("before Next is ready", () => {
  let server: RunningServer;
  let cleanup: () => void;
  let letNextStart = () => {};

  beforeAll(async () => {
    const temp = makeTempHome("atrium-headers-");
    cleanup = temp.cleanup;
    process.env.ATRIUM_TOKEN = TEST_TOKEN;
    const held = new Promise<void>((resolve) => (letNextStart = resolve));
    server = await startServer({ home: temp.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: () => held });
  });
  afterAll(async () => {
    letNextStart();
    await server?.close();
    cleanup?.();
    delete process.env.ATRIUM_TOKEN;
  });

  it("health and the gate's refusals answered by server.ts carry them", async () => {
    const health = await rawRequest(server.url, "/api/health", { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(health.status).toBe(200);
    expectCommon(health);
    expect(health.headers["x-frame-options"]).toBeUndefined();
    const refused = await rawRequest(server.url, "/api/models");
    expect(refused.status).toBe(401);
    expectCommon(refused);
    const redirect = await rawRequest(server.url, "/approvals");
    expect(redirect.status).toBe(302);
    expectPage(redirect);
  });
});
