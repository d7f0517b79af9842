import { afterEach, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../server";
import { makeTempHome } from "../../support/temp-home";

const TOKEN = "start-before-next-token-0123456789";

let home: ReturnType<typeof makeTempHome> | null = null;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  home?.cleanup();
  delete process.env.ATRIUM_TOKEN;
});

it("answers /api/health before Next is ready, and a request made meanwhile is served once it is", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  let letNextStart = () => {};
  const held = new Promise<void>((resolve) => (letNextStart = resolve));
  server = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: () => held });
  const authorized = { authorization: `Bearer ${TOKEN}` };

  // Next has not even started loading: the custom server answers health and the gate's refusals itself.
  const health = await fetch(`${server.url}/api/health`, { headers: authorized });
  expect(health.status).toBe(200);
  expect(health.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(health.headers.get("cache-control")).toBe("no-store");
  expect(await health.json()).toEqual({ status: "ok", streams: 0 });
  const refused = await fetch(`${server.url}/api/models`);
  expect(refused.status).toBe(401);
  expect((await refused.json()).error.code).toBe("unauthorized");

  // A normal request waits for Next instead of failing.
  let settled = false;
  const models = fetch(`${server.url}/api/models`, { headers: authorized }).finally(() => (settled = true));
  const stillHealthy = await fetch(`${server.url}/api/health`, { headers: authorized });
  expect(stillHealthy.status).toBe(200);
  expect(settled).toBe(false);

  letNextStart();
  await server.ready;
  const answer = await models;
  expect(answer.status).toBe(200);
  expect((await answer.json()).models.map((model: { id: string }) => model.id)).toContain("offline");
  // Once ready, Next's route answers health, with the same body.
  const fromNext = await fetch(`${server.url}/api/health`, { headers: authorized });
  expect(await fromNext.json()).toEqual({ status: "ok", streams: 0 });
});

it("closes cleanly while Next is still held back, and the waiting request is dropped, not served", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  let letNextStart = () => {};
  const held = new Promise<void>((resolve) => (letNextStart = resolve));
  const running = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: () => held });
  const waiting = fetch(`${running.url}/api/models`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(
    (response) => response.status,
    () => "dropped",
  );
  const health = await fetch(`${running.url}/api/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(health.status).toBe(200);
  const closed = running.close();
  letNextStart();
  await closed;
  expect(await waiting).toBe("dropped");
  // The lock is released: a second server can take the same home.
  server = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {} });
  await server.ready;
});

it("answers 500 while Next cannot start, and says so through `ready`", async () => {
  home = makeTempHome("atrium-start-");
  process.env.ATRIUM_TOKEN = TOKEN;
  server = await startServer({ home: home.home, host: "127.0.0.1", port: 0, log: () => {}, beforeNext: () => Promise.reject(new Error("no Next today")) });
  await expect(server.ready).rejects.toThrow("no Next today");
  const answer = await fetch(`${server.url}/api/models`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(answer.status).toBe(500);
  expect((await answer.json()).error.code).toBe("internal_error");
});
