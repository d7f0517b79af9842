import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { writeAnswer } from "@/lib/api/node-bridge";
import { MAX_BEHIND_BYTES, openStreamCount, sseStream, type SseWriter } from "@/lib/api/sse";
import { waitUntil } from "../../support/wait-until";

/**
 * An event stream sent by node-bridge writes straight to Node's response (no web stream): what
 * a client reads, what a client that stops reading gets, and what a client that leaves frees.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  // A stream's slot is given back when the server sees its client go: each test starts with none open.
  await waitUntil(() => openStreamCount() === 0, "the test's streams to close");
});

interface Opened {
  writer: SseWriter;
  detached: () => boolean;
  sent: Promise<void>;
}

/** A real HTTP server whose one route is an event stream, sent as node-bridge sends the API's answers. */
async function streamServer(): Promise<{ port: number; opened: Promise<Opened>; connectionClosed: Promise<void> }> {
  let resolveOpened: (opened: Opened) => void = () => {};
  const opened = new Promise<Opened>((resolve) => (resolveOpened = resolve));
  let resolveClosed: () => void = () => {};
  const connectionClosed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const server = http.createServer((request, response) => {
    const aborter = new AbortController();
    response.once("close", () => aborter.abort());
    let writer: SseWriter | null = null;
    let detached = false;
    const answer = sseStream(new Request(`http://localhost${request.url}`, { headers: { authorization: "Bearer sse-node-response" }, signal: aborter.signal }), (given) => {
      writer = given;
      return () => {
        detached = true;
      };
    });
    const sent = writeAnswer(response, answer, false);
    resolveOpened({ writer: writer!, detached: () => detached, sent });
  });
  // The server's side of the (one) client connection: closed when the server drops it or the client leaves.
  server.once("connection", (socket) => socket.once("close", () => resolveClosed()));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, opened, connectionClosed };
}

describe("an event stream sent to Node's response", () => {
  it("delivers each frame as written, the first of a loop turn at once", async () => {
    const { port, opened } = await streamServer();
    const received: string[] = [];
    const request = http.get({ host: "127.0.0.1", port, path: "/api/events" });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once("response", resolve));
    expect(response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    response.setEncoding("utf8");
    response.on("data", (text: string) => received.push(text));
    const { writer } = await opened;
    await waitUntil(() => received.join("") === ": connected\n\n", "the stream's first frame");
    writer.write("data: one\n\n");
    writer.write("data: two\n\n");
    await waitUntil(() => received.join("").endsWith("data: two\n\n"), "both frames");
    expect(received.join("")).toBe(": connected\n\ndata: one\n\ndata: two\n\n");
    request.destroy();
  });

  it("cuts off a client that stops reading once more than 4 MiB wait for it: its connection is dropped, its subscriber detached, its slot freed", async () => {
    const before = openStreamCount();
    const { port, opened, connectionClosed } = await streamServer();
    // A client that sends its request and never reads: the socket's buffers fill, then Node's.
    const socket = net.connect(port, "127.0.0.1");
    socket.pause();
    socket.write(`GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    const { writer, detached, sent } = await opened;
    expect(openStreamCount()).toBe(before + 1);
    const chunk = `data: ${"x".repeat(256 * 1024)}\n\n`;
    let written = 0;
    // Written a loop turn at a time (each turn's first frame goes straight to the response), until the server gives up.
    while (!detached()) {
      writer.write(chunk);
      written += chunk.length;
      expect(written).toBeLessThan(64 * MAX_BEHIND_BYTES);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written).toBeGreaterThan(MAX_BEHIND_BYTES);
    await sent;
    expect(openStreamCount()).toBe(before);
    // Not kept open with megabytes waiting for a client that may never read them (the client still holds its end): it reconnects and resumes by event id.
    await connectionClosed;
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });

  it("detaches the subscriber and frees the slot when the client goes away", async () => {
    const before = openStreamCount();
    const { port, opened } = await streamServer();
    const request = http.get({ host: "127.0.0.1", port, path: "/api/events" });
    request.on("error", () => {});
    await new Promise((resolve) => request.once("response", resolve));
    const { detached, sent } = await opened;
    expect(openStreamCount()).toBe(before + 1);
    request.destroy();
    await sent;
    expect(detached()).toBe(true);
    expect(openStreamCount()).toBe(before);
  });
});
