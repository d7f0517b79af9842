import { afterEach, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../server";
import { freePort } from "../../support/mcp-servers";
import { rawRequest } from "../../support/raw-http";
import { makeTempHome } from "../../support/temp-home";

const TOKEN = "start-before-next-token-0123456789";
const authorized = { authorization: `Bearer ${TOKEN}` };

let home: ReturnType<typeof makeTempHome> | null = null;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  home?.cleanup();
  delete process.env.ATRIUM_TOKEN;
});

function held(): { wait: () => Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { wait: () => promise, release };
}

it("listens before recovery but answers nothing, health included, until recovery is done", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  const recovery = held();
  const port = await freePort();
  let started = false;
  const starting = startServer({ home: home.home, host: "127.0.0.1", port, log: () => {}, beforeRecovery: recovery.wait }).then((running) => {
    started = true;
    return running;
  });
  // The port is taken (the connection is accepted), but the answer waits for recovery.
  let answered = false;
  const health = rawRequest(`http://127.0.0.1:${port}`, "/api/health", { headers: authorized }).finally(() => (answered = true));
  const models = fetch(`http://127.0.0.1:${port}/api/models`, { headers: authorized });
  for (let tick = 0; tick < 20; tick += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(answered).toBe(false);
  expect(started).toBe(false);
  // The gate's refusals need no Runtime and come at once.
  const refused = await rawRequest(`http://127.0.0.1:${port}`, "/api/models");
  expect(refused.status).toBe(401);
  expect(answered).toBe(false);

  recovery.release();
  server = await starting;
  expect((await health).status).toBe(200);
  expect(JSON.parse((await health).body)).toEqual({ status: "ok", streams: 0 });
  expect((await models).status).toBe(200);
});

it("serves the API without Next, and loads Next at the first page request", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  const next = held();
  let nextAsked = false;
  server = await startServer({
    home: home.home,
    host: "127.0.0.1",
    port: 0,
    log: () => {},
    beforeNext: () => {
      nextAsked = true;
      return next.wait();
    },
  });

  const health = await fetch(`${server.url}/api/health`, { headers: authorized });
  expect(health.status).toBe(200);
  expect(health.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(health.headers.get("cache-control")).toBe("no-store");
  expect(await health.json()).toEqual({ status: "ok", streams: 0 });
  const models = await fetch(`${server.url}/api/models`, { headers: authorized });
  expect(models.status).toBe(200);
  expect((await models.json()).models.map((model: { id: string }) => model.id)).toContain("offline");
  const created = await fetch(`${server.url}/api/conversations`, { method: "POST", headers: { ...authorized, "content-type": "application/json" }, body: JSON.stringify({ text: "hello" }) });
  expect(created.status).toBe(201);
  const unknown = await fetch(`${server.url}/api/nothing-here`, { headers: authorized });
  expect(unknown.status).toBe(404);
  expect((await unknown.json()).error.code).toBe("not_found");
  const wrongMethod = await fetch(`${server.url}/api/models`, { method: "DELETE", headers: authorized });
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  const trailing = await rawRequest(server.url, "/api/models/?x=1", { headers: authorized });
  expect(trailing.status).toBe(308);
  expect(trailing.headers.location).toBe("/api/models?x=1");
  expect(nextAsked).toBe(false);

  // A page waits for Next instead of failing.
  let settled = false;
  const page = fetch(`${server.url}/settings`, { headers: authorized }).finally(() => (settled = true));
  await expect.poll(() => nextAsked).toBe(true);
  expect((await fetch(`${server.url}/api/health`, { headers: authorized })).status).toBe(200);
  expect(settled).toBe(false);
  next.release();
  await server.ready;
  expect((await page).status).toBe(200);
});

it("closes cleanly while Next is still held back, and the waiting page request is dropped, not served", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  const next = held();
  const running = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: next.wait });
  const waiting = fetch(`${running.url}/settings`, { headers: authorized }).then(
    (response) => response.status,
    () => "dropped",
  );
  const health = await fetch(`${running.url}/api/health`, { headers: authorized });
  expect(health.status).toBe(200);
  const closed = running.close();
  next.release();
  await closed;
  expect(await waiting).toBe("dropped");
  // The lock is released: a second server can take the same home.
  server = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {} });
  expect((await fetch(`${server.url}/api/health`, { headers: authorized })).status).toBe(200);
});

it("answers 500 for a page while Next cannot start, says so through `ready`, and the API keeps working", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  server = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: () => Promise.reject(new Error("no Next today")) });
  const answer = await fetch(`${server.url}/settings`, { headers: authorized });
  expect(answer.status).toBe(500);
  expect((await answer.json()).error.code).toBe("internal_error");
  await expect(server.ready).rejects.toThrow("no Next today");
  expect((await fetch(`${server.url}/api/models`, { headers: authorized })).status).toBe(200);
});
