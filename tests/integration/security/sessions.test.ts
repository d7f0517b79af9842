import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionStore } from "@/lib/auth/session-store";
import { backendDatabaseUrl, onPostgresBackend } from "../../support/postgres-backend";
import { rawRequest } from "../../support/raw-http";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

/** DESIGN §10, issue 21 finding 5: each sign-in is its own server-side session, and sign-out ends it. */

let server: ServerProcess;
let home: string;
let cleanup: () => void;

async function signIn(browser = "vitest-browser/1.0"): Promise<string> {
  const answer = await rawRequest(server.url, `/auth/signin?token=${TEST_TOKEN}`, { headers: { "user-agent": browser } });
  expect(answer.status).toBe(303);
  expect(answer.headers.location).toBe("/");
  const setCookie = String(answer.headers["set-cookie"]);
  expect(setCookie).toContain("HttpOnly");
  expect(setCookie).toContain("SameSite=Strict");
  return setCookie.split(";")[0]!;
}

/** What the server keeps of its sessions: sessions.json, or the table of a one-node cluster (DESIGN §10c). */
async function storedSessions(file: string): Promise<string> {
  if (!onPostgresBackend()) return fs.readFileSync(file, "utf8");
  const client = new pg.Client({ connectionString: backendDatabaseUrl(home) });
  await client.connect();
  try {
    return JSON.stringify((await client.query("SELECT * FROM atrium_sessions")).rows);
  } finally {
    await client.end();
  }
}

async function conversationsWith(cookie: string): Promise<number> {
  return (await rawRequest(server.url, "/api/conversations", { headers: { cookie } })).status;
}

beforeAll(async () => {
  ({ home, cleanup } = makeTempHome());
  server = await startServerProcess(home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

describe("browser sessions", () => {
  it("two sign-ins get different cookies, and only hashes are stored (0600)", async () => {
    const first = await signIn();
    const second = await signIn();
    expect(first).not.toBe(second);
    expect(first).toMatch(/^atrium_session=[A-Za-z0-9_-]{43}$/);
    expect(await conversationsWith(first)).toBe(200);
    expect(await conversationsWith(second)).toBe(200);
    const file = path.join(home, "sessions.json");
    const stored = await storedSessions(file);
    expect(stored).toMatch(/[0-9a-f]{64}/);
    expect(stored).not.toContain(first.split("=")[1]);
    expect(stored).not.toContain(second.split("=")[1]);
    expect(stored).not.toContain(TEST_TOKEN);
    if (!onPostgresBackend()) expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("after sign-out the copied cookie is refused", async () => {
    const cookie = await signIn();
    const copy = cookie;
    expect(await conversationsWith(copy)).toBe(200);
    const signOut = await rawRequest(server.url, "/auth/signout", { method: "POST", headers: { cookie, origin: server.url } });
    expect(signOut.status).toBe(303);
    expect(await conversationsWith(copy)).toBe(401);
    const page = await rawRequest(server.url, "/settings", { headers: { cookie: copy } });
    expect(page.status).not.toBe(200);
  });

  it("lists sessions with the current one marked, cut browser names, and no credential", async () => {
    const cookie = await signIn(`long-browser ${"x".repeat(400)}`);
    const answer = await rawRequest(server.url, "/api/auth/sessions", { headers: { cookie } });
    expect(answer.status).toBe(200);
    const { sessions } = JSON.parse(answer.body) as { sessions: Array<{ id: string; browser: string; createdAt: string; lastSeenAt: string; current: boolean }> };
    const current = sessions.filter((session) => session.current);
    expect(current).toHaveLength(1);
    expect(current[0]!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(current[0]!.browser.length).toBe(200);
    expect(Date.parse(current[0]!.createdAt)).not.toBeNaN();
    expect(Date.parse(current[0]!.lastSeenAt)).not.toBeNaN();
    expect(answer.body).not.toContain(cookie.split("=")[1]);
    // With the token there is no current session.
    const byToken = JSON.parse((await rawRequest(server.url, "/api/auth/sessions", { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).body) as { sessions: Array<{ current: boolean }> };
    expect(byToken.sessions.some((session) => session.current)).toBe(false);
  });

  it("the Settings page shows the Sessions card", async () => {
    const cookie = await signIn("settings-card-browser/2.0");
    const page = await rawRequest(server.url, "/settings", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Sign out everywhere");
    expect(page.body).toContain("settings-card-browser/2.0");
    expect(page.body).toContain("This browser");
  });

  it("a cross-site DELETE with the cookie is refused; a same-origin one ends every session", async () => {
    const one = await signIn();
    const two = await signIn();
    const foreign = await rawRequest(server.url, "/api/auth/sessions", { method: "DELETE", headers: { cookie: one, origin: "http://evil.test" } });
    expect(foreign.status).toBe(403);
    expect(await conversationsWith(one)).toBe(200);
    const ended = await rawRequest(server.url, "/api/auth/sessions", { method: "DELETE", headers: { cookie: one, origin: server.url } });
    expect(ended.status).toBe(204);
    expect(await conversationsWith(one)).toBe(401);
    expect(await conversationsWith(two)).toBe(401);
    const list = JSON.parse((await rawRequest(server.url, "/api/auth/sessions", { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).body) as { sessions: unknown[] };
    expect(list.sessions).toEqual([]);
  });

  it("a session survives a server restart", async () => {
    const cookie = await signIn();
    expect(await conversationsWith(cookie)).toBe(200);
    await server.stop();
    server = await startServerProcess(home);
    expect(await conversationsWith(cookie)).toBe(200);
  });
});

describe("SessionStore", () => {
  it("writes lastSeenAt at most once a minute", () => {
    const temp = makeTempHome("atrium-sessions-");
    try {
      let now = Date.parse("2026-01-01T00:00:00Z");
      const file = path.join(temp.home, "sessions.json");
      const store = new SessionStore(file, () => now);
      const id = store.create("b");
      const written = () => (JSON.parse(fs.readFileSync(file, "utf8")) as { sessions: Array<{ lastSeenAt: string }> }).sessions[0]!.lastSeenAt;
      now += 30_000;
      expect(store.verify(id)).toBe(true);
      expect(written()).toBe("2026-01-01T00:00:00.000Z");
      now += 31_000;
      expect(store.verify(id)).toBe(true);
      expect(written()).toBe("2026-01-01T00:01:01.000Z");
      expect(store.verify("not-a-session")).toBe(false);
      expect(new SessionStore(file).verify(id)).toBe(true);
      expect(fs.readdirSync(temp.home)).toEqual(["sessions.json"]);
    } finally {
      temp.cleanup();
    }
  });
});
