import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

const FAKE_ID = "01JAAAAAAAAAAAAAAAAAAAAAAA";

/** Every route of DESIGN §8, with a body where it takes one. */
const ROUTES: Array<[string, string]> = [
  ["GET", "/api/health"],
  ["GET", "/api/conversations"],
  ["POST", "/api/conversations"],
  ["GET", `/api/conversations/${FAKE_ID}`],
  ["PATCH", `/api/conversations/${FAKE_ID}`],
  ["DELETE", `/api/conversations/${FAKE_ID}`],
  ["POST", `/api/conversations/${FAKE_ID}/fork`],
  ["POST", `/api/conversations/${FAKE_ID}/rewind`],
  ["GET", `/api/conversations/${FAKE_ID}/rewind?itemId=${FAKE_ID}`],
  ["GET", `/api/turns/${FAKE_ID}/changes`],
  ["GET", `/api/conversations/${FAKE_ID}/items`],
  ["POST", `/api/conversations/${FAKE_ID}/messages`],
  ["GET", `/api/conversations/${FAKE_ID}/queue`],
  ["PATCH", `/api/conversations/${FAKE_ID}/queue/${FAKE_ID}`],
  ["DELETE", `/api/conversations/${FAKE_ID}/queue/${FAKE_ID}`],
  ["POST", `/api/conversations/${FAKE_ID}/interrupt`],
  ["GET", `/api/conversations/${FAKE_ID}/turns`],
  ["GET", `/api/turns/${FAKE_ID}`],
  ["GET", `/api/conversations/${FAKE_ID}/sessions`],
  ["GET", `/api/conversations/${FAKE_ID}/events`],
  ["GET", "/api/events"],
  ["GET", "/api/stream"],
  ["POST", `/api/stream/${FAKE_ID}/subscriptions`],
  ["GET", "/api/approvals?status=pending"],
  ["POST", `/api/approvals/${FAKE_ID}`],
  ["POST", `/api/questions/${FAKE_ID}/answer`],
  ["GET", "/api/models"],
  ["GET", "/api/agents"],
  ["GET", "/api/openapi.json"],
];

let server: ServerProcess;
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ home, cleanup } = makeTempHome());
  server = await startServerProcess(home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

describe("authentication", () => {
  it.each(ROUTES)("%s %s answers 401 without a token and with a wrong one", async (method, route) => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong-token" }, { cookie: "atrium_session=forged" }];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}${route}`, { method, headers, body: method === "GET" || method === "DELETE" ? undefined : "{}" });
      expect(response.status).toBe(401);
      const body = await response.json();
      expect(body.error.code).toBe("unauthorized");
    }
  });

  it("answers with the token", async () => {
    const response = await server.api("/api/health");
    expect(response.status).toBe(200);
  });
});

describe("bad input", () => {
  it("changes no stream that is not open (404) and refuses malformed subscriptions (400)", async () => {
    const missing = await server.api(`/api/stream/${FAKE_ID}/subscriptions`, { method: "POST", body: JSON.stringify({ add: [] }) });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("not_found");
    const malformed = await server.api(`/api/stream/${FAKE_ID}/subscriptions`, {
      method: "POST",
      body: JSON.stringify({ add: [{ key: "no spaces allowed", conversationId: FAKE_ID }] }),
    });
    expect(malformed.status).toBe(400);
    const notAnId = await server.api("/api/stream/not-an-id/subscriptions", { method: "POST", body: "{}" });
    expect(notAnId.status).toBe(400);
  });

  it("rejects malformed JSON with 400 bad_request", async () => {
    const response = await server.api("/api/conversations", { method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("bad_request");
  });

  it("rejects wrong types with 400 naming the field", async () => {
    const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: 42 }) });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message).toContain("text");
  });

  it("rejects a malformed id with 400 and an unknown one with 404", async () => {
    const malformed = await server.api("/api/conversations/not-an-id");
    expect(malformed.status).toBe(400);
    const unknown = await server.api(`/api/conversations/${FAKE_ID}`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
  });

  it("rejects JSON bodies over 1 MiB with 413", async () => {
    const response = await server.api("/api/conversations", {
      method: "POST",
      body: JSON.stringify({ text: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large");
  });

  it("rejects bad query parameters with 400", async () => {
    const response = await server.api("/api/conversations?archived=maybe");
    expect(response.status).toBe(400);
  });

  it("checks the checkpoint routes' input: rewind flags, the item query, unknown turns", async () => {
    const flags = await server.api(`/api/conversations/${FAKE_ID}/rewind`, { method: "POST", body: JSON.stringify({ itemId: FAKE_ID, restoreFiles: "yes" }) });
    expect(flags.status).toBe(400);
    expect((await flags.json()).error.message).toContain("restoreFiles");
    expect((await server.api(`/api/conversations/${FAKE_ID}/rewind?itemId=nope`)).status).toBe(400);
    expect((await server.api(`/api/turns/${FAKE_ID}/changes?item=nope`)).status).toBe(400);
    const unknown = await server.api(`/api/turns/${FAKE_ID}/changes`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
  });

  it("keeps path traversal ids away from the file system", async () => {
    const outside = path.join(path.dirname(home), `atrium-outside-${Date.now()}`);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, "metadata.jsonl"), "{}\n");
    // What the attempts would reach if they got through: names in the temp folder (shared with
    // every other test running, so its whole listing cannot be compared) and in the data directory.
    const reachable = () => [path.dirname(home), home, path.join(home, "conversations")].flatMap((folder) => (fs.existsSync(folder) ? fs.readdirSync(folder) : []));
    const before = reachable().filter((name) => ["etc", "x", "items"].includes(name));
    for (const attempt of [
      `/api/conversations/..%2F${path.basename(outside)}`,
      `/api/conversations/..%2F..%2Fetc`,
      `/api/conversations/../../etc/items`,
      `/api/conversations/%2E%2E%2F%2E%2E/items`,
      `/api/conversations/${FAKE_ID}/queue/..%2F..%2Fx`,
    ]) {
      const response = await server.api(attempt, { method: "DELETE" });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    expect(fs.existsSync(path.join(outside, "metadata.jsonl"))).toBe(true);
    expect(reachable().filter((name) => ["etc", "x", "items"].includes(name))).toEqual(before);
    fs.rmSync(outside, { recursive: true, force: true });
  });
});
