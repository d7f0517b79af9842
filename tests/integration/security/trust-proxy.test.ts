import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rawRequest } from "../../support/raw-http";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

/** DESIGN §10, issue 21 finding 10: X-Forwarded-Host/-Proto count in the same-origin check only with `trustProxy: true`. */

let server: ServerProcess | null = null;
let cleanup: (() => void) | null = null;
afterEach(async () => {
  await server?.stop();
  cleanup?.();
  server = null;
  cleanup = null;
});

async function start(config: object): Promise<ServerProcess> {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  fs.writeFileSync(path.join(temp.home, "config.json"), JSON.stringify(config));
  server = await startServerProcess(temp.home);
  return server;
}

async function signIn(running: ServerProcess): Promise<string> {
  const answer = await rawRequest(running.url, `/auth/signin?token=${TEST_TOKEN}`);
  expect(answer.status).toBe(303);
  return String(answer.headers["set-cookie"]).split(";")[0]!;
}

function post(running: ServerProcess, cookie: string, headers: Record<string, string>) {
  return rawRequest(running.url, "/api/conversations", {
    method: "POST",
    headers: { cookie, "content-type": "application/json", ...headers },
    body: JSON.stringify({ text: "forwarded?" }),
  });
}

describe("trustProxy", () => {
  it("by default a client-sent X-Forwarded-Host does not make another origin its own", async () => {
    const running = await start({});
    const cookie = await signIn(running);
    const forged = await post(running, cookie, { origin: "http://evil.test", "x-forwarded-host": "evil.test" });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body).error.code).toBe("forbidden");
    const proto = await post(running, cookie, { origin: "https://evil.test", "x-forwarded-host": "evil.test", "x-forwarded-proto": "https" });
    expect(proto.status).toBe(403);
    // The same-origin write still works.
    expect((await post(running, cookie, { origin: running.url })).status).toBe(201);
    // And the sign-in cookie is not marked Secure because of a forged X-Forwarded-Proto.
    const forwardedSignIn = await rawRequest(running.url, `/auth/signin?token=${TEST_TOKEN}`, { headers: { "x-forwarded-proto": "https" } });
    expect(String(forwardedSignIn.headers["set-cookie"])).not.toContain("Secure");
  });

  it("with trustProxy: true the proxy's forwarded origin is Atrium's own", async () => {
    const running = await start({ trustProxy: true });
    const cookie = await signIn(running);
    const proxied = await post(running, cookie, { origin: "https://atrium.example", "x-forwarded-host": "atrium.example", "x-forwarded-proto": "https" });
    expect(proxied.status).toBe(201);
    const other = await post(running, cookie, { origin: "http://evil.test", "x-forwarded-host": "atrium.example" });
    expect(other.status).toBe(403);
  });
});
