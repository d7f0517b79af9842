import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/openapi";
import { pollUntil } from "../../support/poll";
import { rawRequest } from "../../support/raw-http";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

/**
 * One real server (production build) for the whole file: the sign-in gate on raw paths,
 * cross-site writes with the cookie, query parameters, the not-found page, and what a
 * shell command sees of the server's environment.
 */

const TITLE = "Zanzibar giraffe ledger";
const FOREIGN = "http://127.0.0.1:8080";
let COOKIE = "";
const LEAKS = { OPENAI_API_KEY: "sk-leak-openai-4242", ANTHROPIC_API_KEY: "sk-leak-anthropic-4242", DATABASE_PASSWORD: "pw-leak-4242" };
const LISTED = { GITHUB_TOKEN: "gh-listed-by-config" };
const UNKNOWN_ID = "01JAAAAAAAAAAAAAAAAAAAAAAA";

let server: ServerProcess;
let cleanup: () => void;
let conversationId: string;
let actionId: string;

async function createConversation(text: string): Promise<string> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/** A browser sign-in: its own server-side session. */
async function signIn(): Promise<string> {
  const answer = await rawRequest(server.url, `/auth/signin?token=${TEST_TOKEN}`);
  expect(answer.status).toBe(303);
  return String(answer.headers["set-cookie"]).split(";")[0]!;
}

async function conversationIds(): Promise<string[]> {
  const body = (await (await server.api("/api/conversations?archived=all&limit=200")).json()) as { conversations: Array<{ id: string }> };
  return body.conversations.map((conversation) => conversation.id).sort();
}

async function title(id: string): Promise<string> {
  return ((await (await server.api(`/api/conversations/${id}`)).json()) as { conversation: { title: string } }).conversation.title;
}

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  fs.writeFileSync(path.join(temp.home, "config.json"), JSON.stringify({ approvals: { shell: "auto" }, shell: { env: ["GITHUB_TOKEN"] } }));
  server = await startServerProcess(temp.home, { ...LEAKS, ...LISTED });
  COOKIE = await signIn();
  conversationId = await createConversation("hello");
  // The first turn must be over before any "nothing was written" comparison of its items.
  await pollUntil(
    async () => ((await (await server.api(`/api/conversations/${conversationId}`)).json()) as { conversation: { status: string } }).conversation.status === "idle",
    { timeoutMs: 30_000, what: "the first turn to end" },
  );
  const renamed = await server.api(`/api/conversations/${conversationId}`, { method: "PATCH", body: JSON.stringify({ title: TITLE }) });
  expect(renamed.status).toBe(200);
  const manifest = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../../.next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName: string }>;
  };
  actionId = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === "resyncConversation")![0];
}, 90_000);

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

/** The same target reached raw, through public prefixes with dot segments, and with escapes. */
function disguises(target: string): string[] {
  return [
    `/${target}`,
    `/./${target}`,
    `/auth/../${target}`,
    `/auth/%2e%2e/${target}`,
    `/auth/%2E%2E/${target}`,
    `/auth/.%2e/${target}`,
    `/auth/signin/../../${target}`,
    `/_next/static/../../${target}`,
    `/_next/static/%2e%2e/%2e%2e/${target}`,
    `/api/webhooks/../../${target}`,
    `/api/webhooks/github/../../../${target}`,
    `/signin/../${target}`,
    `/signin/%2e%2e/${target}`,
    `/icon.svg/../${target}`,
    `/auth/..%2f${target}`,
    `/signin/..%5c${target}`,
    `/auth/%252e%252e/${target}`,
    `//${target}`,
    `/auth/../../${target}`,
  ];
}

function expectNothingLeaked(answer: { status: number; headers: Record<string, unknown>; body: string }, where: string) {
  expect([302, 400, 401], where).toContain(answer.status);
  if (answer.status === 302) expect(answer.headers.location, where).toBe("/signin");
  expect(answer.body, where).not.toContain(TITLE);
  expect(answer.body, where).not.toContain("giraffe");
  expect(answer.body, where).not.toContain(conversationId);
}

describe("signed out, every page and API read is refused however the path is written", () => {
  const targets = () => ["", `c/${conversationId}`, "archive", "approvals", "new", "settings", "api/conversations", `api/conversations/${conversationId}`, `api/conversations/${conversationId}/items`, "api/approvals", "api/openapi.json"];

  it("pages and API routes through raw, dot-segment and percent-encoded paths", async () => {
    let checked = 0;
    for (const target of targets()) {
      const answers = await Promise.all(disguises(target).map(async (rawPath) => [rawPath, await rawRequest(server.url, rawPath)] as const));
      for (const [rawPath, answer] of answers) {
        expectNothingLeaked(answer, rawPath);
        checked += 1;
      }
    }
    expect(checked).toBe(targets().length * disguises("").length);
  });

  it("the server action through the same paths", async () => {
    for (const rawPath of disguises(`c/${conversationId}`)) {
      const answer = await rawRequest(server.url, rawPath, {
        method: "POST",
        headers: { "next-action": actionId, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
        body: JSON.stringify([conversationId, 0]),
      });
      expectNothingLeaked(answer, `action via ${rawPath}`);
    }
  });

  it("a forged or foreign cookie is no session", async () => {
    for (const cookie of ["atrium_session=forged", `atrium_session=${"A".repeat(43)}`, "atrium_session=%E0%A4%A"]) {
      const answer = await rawRequest(server.url, `/c/${conversationId}`, { headers: { cookie } });
      expectNothingLeaked(answer, cookie);
    }
  });
});

describe("cross-site writes with the session cookie", () => {
  const writes = () => [
    { method: "POST", path: "/api/conversations", body: JSON.stringify({ text: "cross-site" }) },
    { method: "PATCH", path: `/api/conversations/${conversationId}`, body: JSON.stringify({ title: "pwned" }) },
    { method: "DELETE", path: `/api/conversations/${conversationId}` },
    { method: "POST", path: `/api/conversations/${conversationId}/messages`, body: JSON.stringify({ text: "cross-site" }) },
    { method: "POST", path: `/api/approvals/${UNKNOWN_ID}`, body: JSON.stringify({ decision: "approve" }) },
  ];
  const foreignHeaders: Array<Record<string, string>> = [
    { origin: FOREIGN, "content-type": "text/plain" },
    { origin: FOREIGN, "content-type": "application/json" },
    { origin: FOREIGN, "sec-fetch-site": "same-site", "content-type": "application/json" },
    { origin: "null", "content-type": "application/json" },
    { "content-type": "application/json" },
  ];

  it("POST, PATCH and DELETE from another origin are 403 forbidden and write nothing", async () => {
    const before = await conversationIds();
    const itemsBefore = await (await server.api(`/api/conversations/${conversationId}/items`)).text();
    for (const write of writes()) {
      for (const headers of foreignHeaders) {
        const answer = await rawRequest(server.url, write.path, { method: write.method, headers: { cookie: COOKIE, ...headers }, body: write.body });
        expect(answer.status, `${write.method} ${write.path} ${JSON.stringify(headers)}`).toBe(403);
        expect(JSON.parse(answer.body).error.code).toBe("forbidden");
      }
    }
    expect(await conversationIds()).toEqual(before);
    expect(await title(conversationId)).toBe(TITLE);
    expect(await (await server.api(`/api/conversations/${conversationId}/items`)).text()).toBe(itemsBefore);
  });

  it("sign-out and the server action from another origin are refused too", async () => {
    const signOut = await rawRequest(server.url, "/auth/signout", { method: "POST", headers: { cookie: COOKIE, origin: FOREIGN, "content-type": "application/x-www-form-urlencoded" } });
    expect(signOut.status).toBe(403);
    expect(signOut.headers["set-cookie"]).toBeUndefined();
    const action = await rawRequest(server.url, `/c/${conversationId}`, {
      method: "POST",
      headers: { cookie: COOKIE, origin: FOREIGN, "next-action": actionId, "content-type": "text/plain;charset=UTF-8" },
      body: JSON.stringify([conversationId, 0]),
    });
    expect(action.status).toBe(403);
    expect(action.body).not.toContain(TITLE);
  });

  it("the same writes from Atrium's own origin work; a non-JSON body is 415 and writes nothing", async () => {
    const before = await conversationIds();
    const plain = await rawRequest(server.url, "/api/conversations", { method: "POST", headers: { cookie: COOKIE, origin: server.url, "content-type": "text/plain" }, body: JSON.stringify({ text: "plain" }) });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body).error.code).toBe("unsupported_media_type");
    expect(await conversationIds()).toEqual(before);

    const created = await rawRequest(server.url, "/api/conversations", { method: "POST", headers: { cookie: COOKIE, origin: server.url, "content-type": "application/json" }, body: JSON.stringify({ text: "same origin" }) });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.body).conversation.id as string;
    const patched = await rawRequest(server.url, `/api/conversations/${id}`, { method: "PATCH", headers: { cookie: COOKIE, "sec-fetch-site": "same-origin", "content-type": "application/json" }, body: JSON.stringify({ title: "renamed here" }) });
    expect(patched.status).toBe(200);
    expect(await title(id)).toBe("renamed here");
    await pollUntil(async () => ((await (await server.api(`/api/conversations/${id}`)).json()) as { conversation: { status: string } }).conversation.status === "idle", { what: "the turn to end" });
    const deleted = await rawRequest(server.url, `/api/conversations/${id}`, { method: "DELETE", headers: { cookie: COOKIE, origin: server.url } });
    expect(deleted.status).toBe(204);
    expect(await conversationIds()).toEqual(before);
  });

  it("Bearer requests are not affected by Origin", async () => {
    const answer = await rawRequest(server.url, `/api/conversations/${conversationId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, origin: FOREIGN, "content-type": "application/json" },
      body: JSON.stringify({ title: TITLE }),
    });
    expect(answer.status).toBe(200);
  });

  it("the GET sign-in link sets the cookie only for the right token, and sign-out is POST only", async () => {
    const wrong = await rawRequest(server.url, "/auth/signin?token=not-the-token");
    expect(wrong.status).toBe(303);
    expect(wrong.headers.location).toBe("/signin?error=1");
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const right = await rawRequest(server.url, `/auth/signin?token=${TEST_TOKEN}`);
    expect(right.status).toBe(303);
    expect(String(right.headers["set-cookie"])).toMatch(/^atrium_session=[A-Za-z0-9_-]{43}; /);
    const ownCookie = String(right.headers["set-cookie"]).split(";")[0]!;
    const getSignOut = await rawRequest(server.url, "/auth/signout", { headers: { cookie: COOKIE } });
    expect(getSignOut.status).toBe(405);
    expect(getSignOut.headers["set-cookie"]).toBeUndefined();
    const postSignOut = await rawRequest(server.url, "/auth/signout", { method: "POST", headers: { cookie: ownCookie, origin: server.url } });
    expect(postSignOut.status).toBe(303);
    expect(String(postSignOut.headers["set-cookie"])).toContain("Max-Age=0");
  });
});

describe("bad input never becomes a 500", () => {
  const numbers = ["-1", "abc", "1.5", "1e3", "0x10", "+5", "%205", "5%20", "", "%EF%BC%91%EF%BC%92", "99999999999999999999999", "NaN", "Infinity", "%00"];
  const unknownNames = ["unknown=1", "prototype=1", "constructor=1", "%zz=1", "a%5Bb%5D=1", "=1", "toString=x", "LIMIT=5", "Archived=true", "x=1&y=2"];
  const pad = (list: string[]) => [...list, ...unknownNames, ...unknownNames.map((name) => `${name}&more=1`), ...unknownNames.map((name) => `more=1&${name}`)].slice(0, 30);
  const ulidLike = ["abc", "01jaaaaaaaaaaaaaaaaaaaaaaa", "01JAAAAAAAAAAAAAAAAAAAAAA", "01JAAAAAAAAAAAAAAAAAAAAAAAA", "..%2F..", "%2e%2e", "01JAAAAAAAAAAAAAAAAAAAAAAI"];
  const routes = () => ({
    "/api/conversations": pad([
      "limit=0",
      "archived=maybe",
      "archived=TRUE",
      "sort=random",
      "direction=up",
      `q=${"x".repeat(501)}`,
      "archived=true&archived=false",
      ...numbers.map((value) => `cursor=${value}`),
      ...numbers.map((value) => `limit=${value}`),
    ]),
    [`/api/conversations/${conversationId}/items`]: pad([
      ...numbers.map((value) => `after=${value}`),
      ...numbers.map((value) => `limit=${value}`),
      "limit=0",
      ...ulidLike.map((value) => `session=${value}`),
      "after=1&after=2",
    ]),
    "/api/approvals": pad(["status=maybe", "status=PENDING", "status=", "status=pending%20", "status=pending,approved", "status=null", "status=%00", "status=pending&status=denied"]),
    "/api/questions": pad(["status=maybe", "status=ANSWERED", "status=", "status=%00", ...ulidLike.map((value) => `conversation=${value}`), "conversation=", "status=pending&status=answered"]),
  });

  it("30 malformed query strings per list route answer 400 bad_request", async () => {
    for (const [route, queries] of Object.entries(routes())) {
      expect(queries.length, route).toBe(30);
      const answers = await Promise.all(queries.map(async (query) => [query, await rawRequest(server.url, `${route}?${query}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })] as const));
      for (const [query, answer] of answers) {
        expect(answer.status, `${route}?${query.slice(0, 60)}`).toBe(400);
        expect(JSON.parse(answer.body).error.code).toBe("bad_request");
      }
    }
  });

  it("an unknown conversation page is the not-found page (404), not a 500", async () => {
    for (const id of [UNKNOWN_ID, "not-an-id"]) {
      const answer = await rawRequest(server.url, `/c/${id}`, { headers: { cookie: COOKIE } });
      expect(answer.status, id).toBe(404);
      expect(answer.body).toContain("This conversation is not here");
    }
  });
});

describe("the served API document", () => {
  it("is the generated document, naming this server", async () => {
    const served = (await (await server.api("/api/openapi.json")).json()) as Record<string, unknown>;
    expect(served).toEqual(openApiDocument(server.url));
  });
});

describe("what a shell command sees", () => {
  it("neither the access token nor a provider key from the server's environment; names listed in shell.env do pass", async () => {
    const id = await createConversation('[[tool:shell {"command":"env"}]]');
    const output = await pollUntil(
      async () => {
        const body = (await (await server.api(`/api/conversations/${id}/items`)).json()) as { items: Array<{ kind: string; status: string; output?: string }> };
        const call = body.items.find((item) => item.kind === "tool_call" && item.status === "completed");
        return call?.output;
      },
      { timeoutMs: 20_000, what: "the shell call to finish" },
    );
    expect(output).toContain("PATH=");
    expect(output).toContain(`GITHUB_TOKEN=${LISTED.GITHUB_TOKEN}`);
    expect(output).not.toContain(TEST_TOKEN);
    expect(output).not.toMatch(/^ATRIUM_/m);
    for (const [name, value] of Object.entries(LEAKS)) {
      expect(output).not.toContain(value);
      expect(output).not.toContain(`${name}=`);
    }
  });
});
