import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serveWebHandler, writeAnswer } from "@/lib/api/node-bridge";
import { PlainAnswer } from "@/lib/api/plain-answer";
import { PlainHeaders } from "@/lib/api/plain-headers";
import { onPostgresBackend } from "../../support/postgres-backend";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";

/*
 * The API's lean path (lib/api/node-request.ts, plain-answer.ts, plain-headers.ts): routes get a
 * NodeRequest and answer PlainAnswers, so that an API client never loads undici in the server.
 * What goes over the wire must be what the web Request and Response gave, byte for byte, but for
 * one thing: a text answer of any length now goes out with its content-length (a Response over
 * 64 KiB went chunked).
 */

let server: http.Server | null = null;
let child: ServerProcess | null = null;
let home: ReturnType<typeof makeTempHome> | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
  await child?.stop();
  child = null;
  home?.cleanup();
  home = null;
});

async function listen(handle: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<number> {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

/** The answer as sent, status line, headers and body, Date left out (it moves). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1").replace(/\r\nDate: [^\r]*/, "")));
    socket.on("error", reject);
  });
}

describe("PlainAnswer on the wire", () => {
  const cases: Array<{ name: string; method: string; make: (kind: typeof Response | typeof PlainAnswer) => Response }> = [
    {
      name: "a JSON document with extra headers and two cookies",
      method: "GET",
      make: (Kind) => {
        const answer = new Kind(JSON.stringify({ ok: "ünïcode" }), { status: 201, headers: { "Content-Type": "application/json; charset=utf-8", location: "/api/x", "x-b": " padded " } });
        answer.headers.append("set-cookie", "a=1; Path=/");
        answer.headers.append("set-cookie", "b=2; Path=/");
        answer.headers.append("x-b", "again");
        return answer;
      },
    },
    { name: "an empty 204", method: "GET", make: (Kind) => new Kind(null, { status: 204, headers: { allow: "GET, HEAD" } }) },
    { name: "a JSON document asked for with HEAD", method: "HEAD", make: (Kind) => new Kind('{"a":1}', { status: 200, headers: { "content-type": "application/json" } }) },
    {
      name: "an event stream, chunk by chunk",
      method: "GET",
      make: (Kind) => {
        const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(": connected\n\n"));
            controller.enqueue(new TextEncoder().encode("event: a\ndata: {}\n\n"));
            controller.close();
          },
        });
        return new Kind(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" } });
      },
    },
  ];
  for (const { name, method, make } of cases) {
    it(`sends ${name} exactly as the same Response`, async () => {
      let kind: typeof Response | typeof PlainAnswer = Response;
      const port = await listen((_, response) => void writeAnswer(response, make(kind), method === "HEAD"));
      const request = `${method} / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
      const viaResponse = await rawExchange(port, request);
      kind = PlainAnswer;
      const viaPlain = await rawExchange(port, request);
      expect(viaPlain).toBe(viaResponse);
      expect(viaPlain).toMatch(/^HTTP\/1\.1 \d{3} /);
    });
  }

  it("reads back as a Response does: text, json, a body stream, a clone", async () => {
    const plain = new PlainAnswer('{"n":1}', { status: 404, headers: { "content-type": "application/json" } });
    expect(plain.ok).toBe(false);
    const copy = plain.clone();
    expect(await plain.json()).toEqual({ n: 1 });
    expect(plain.bodyUsed).toBe(true);
    await expect(plain.text()).rejects.toThrow(TypeError);
    expect(await new Response(copy.body).text()).toBe('{"n":1}');
    expect(await new PlainAnswer("x").blob().then((blob) => blob.text())).toBe("x");
  });

  it("refuses what a Response refuses: a body on 204 or 304, a status outside 200-599", () => {
    for (const status of [204, 304]) {
      expect(() => new Response("x", { status })).toThrow(TypeError);
      expect(() => new PlainAnswer("x", { status })).toThrow(TypeError);
      expect(new PlainAnswer(null, { status }).status).toBe(status);
    }
    for (const status of [0, 199, 600]) {
      expect(() => new Response(null, { status })).toThrow(RangeError);
      expect(() => new PlainAnswer(null, { status })).toThrow(RangeError);
    }
  });
});

describe("PlainHeaders", () => {
  it("reads back in the order and combination the fetch standard's Headers gives", () => {
    const pairs: Array<[string, string]> = [
      ["X-Zeta", "1"],
      ["set-cookie", "a=1"],
      ["accept", "text/html"],
      ["Set-Cookie", "b=2"],
      ["ACCEPT", " application/json\t"],
      ["x-empty", ""],
    ];
    const plain = new PlainHeaders(pairs);
    const web = new Headers(pairs);
    expect([...plain]).toEqual([...web]);
    expect([...plain.keys()]).toEqual([...web.keys()]);
    expect([...plain.values()]).toEqual([...web.values()]);
    expect(plain.get("Accept")).toBe(web.get("Accept"));
    expect(plain.get("set-cookie")).toBe(web.get("set-cookie"));
    expect(plain.getSetCookie()).toEqual(web.getSetCookie());
    expect(plain.get("missing")).toBeNull();
    plain.delete("X-ZETA");
    web.delete("X-ZETA");
    plain.set("accept", "*/*");
    web.set("accept", "*/*");
    expect([...plain]).toEqual([...web]);
  });
});

describe("NodeRequest", () => {
  it("gives a route what the web Request gave: method, url, headers, the body, a clone read apart", async () => {
    let seen: Record<string, unknown> = {};
    const port = await listen((request, response) => {
      // As server.ts does when it does not trust a proxy: such a header is not the route's to see.
      delete request.headers["x-forwarded-for"];
      void serveWebHandler(request, response, {
        url: `http://127.0.0.1${request.url}`,
        params: {},
        withoutBody: false,
        handler: async (routeRequest) => {
          const copy = routeRequest.clone();
          seen = {
            method: routeRequest.method,
            url: routeRequest.url,
            accept: routeRequest.headers.get("accept"),
            headers: [...routeRequest.headers].filter(([name]) => name.startsWith("x-")),
            copied: await copy.text(),
            body: await routeRequest.json(),
          };
          return new PlainAnswer("{}", { headers: { "content-type": "application/json" } });
        },
      });
    });
    const body = JSON.stringify({ text: "hello" });
    const raw = `POST /api/things?x=1 HTTP/1.1\r\nHost: x\r\nAccept: a\r\naccept: b\r\nX-Two: 2\r\nX-One: 1\r\nX-Forwarded-For: 10.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    expect(await rawExchange(port, raw)).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(seen).toEqual({
      method: "POST",
      url: "http://127.0.0.1/api/things?x=1",
      accept: "a, b",
      headers: [
        ["x-one", "1"],
        ["x-two", "2"],
      ],
      copied: body,
      body: { text: "hello" },
    });
  });

  it("aborts the route's signal when the client goes away, and stops writing its stream", async () => {
    let aborted = false;
    let cancelled = false;
    const port = await listen((request, response) => {
      void serveWebHandler(request, response, {
        url: `http://127.0.0.1${request.url}`,
        params: {},
        withoutBody: false,
        handler: async (routeRequest) => {
          routeRequest.signal.addEventListener("abort", () => (aborted = true));
          const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
            start: (controller) => controller.enqueue(new TextEncoder().encode(": connected\n\n")),
            cancel: () => void (cancelled = true),
          });
          return new PlainAnswer(stream, { headers: { "content-type": "text/event-stream" } });
        },
      });
    });
    const socket = net.connect(port, "127.0.0.1", () => socket.write("GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n"));
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.destroy();
    await waitUntil(() => aborted && cancelled, "the route's signal to abort and its stream to be cancelled");
  });
});

// A single node's promise: a cluster node loads pg (TLS with it) and forwards calls with fetch.
it.skipIf(onPostgresBackend())("an API-only client (list, live stream, a refused body, unknown path) never loads undici, nor TLS (no https model call yet), in the server", async () => {
  home = makeTempHome("atrium-lean-");
  const loaded = path.join(home.home, "loaded-modules.txt");
  const preload = path.join(home.home, "report-modules.cjs");
  fs.writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join("\\n")));\n`);
  child = await startServerProcess(path.join(home.home, "data"), { NODE_OPTIONS: `--require ${preload}` });
  expect((await child.api("/api/conversations?limit=1")).status).toBe(200);
  expect((await child.api("/api/conversations", { method: "POST", body: JSON.stringify({ bogus: 1 }) })).status).toBe(400);
  expect((await child.api("/api/nothing-here")).status).toBe(404);
  await new Promise<void>((resolve, reject) => {
    const stream = http.get(`${child!.url}/api/stream`, { headers: { authorization: `Bearer ${child!.token}` } }, (response) => {
      response.setEncoding("utf8");
      response.on("data", (text: string) => {
        if (text.includes("stream.opened")) {
          stream.destroy();
          resolve();
        }
      });
    });
    stream.on("error", reject);
  });
  expect(await child.stop()).toBe(0);
  const modules = fs.readFileSync(loaded, "utf8").split("\n");
  expect(modules).toContain("NativeModule http");
  expect(modules.filter((name) => name.includes("undici"))).toEqual([]);
  expect(modules.filter((name) => /^NativeModule (tls|https)$/.test(name))).toEqual([]);
});
