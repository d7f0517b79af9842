import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChunkMapper } from "@/lib/models/openai-compatible/chunk-parts";
import { ResponseParts } from "@/lib/models/openai-compatible/response-parts";

/** A response body that errors before any reader takes its parts (the engine takes them at once; another caller may not). */
describe("ResponseParts before a reader", () => {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(": open\n\n");
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("keeps the body's error for the reader that comes later, instead of crashing the process", async () => {
    const request = http.get(url);
    // The request shares the socket's end (as node-fetch.ts listens to it); the body's reader is the subject.
    request.on("error", () => {});
    const [message] = (await once(request, "response")) as [http.IncomingMessage];
    // Nothing maps chunks here: the subject is the body's error, not the parts.
    const mapper = { chunk: () => {}, end: () => {} } as unknown as ChunkMapper;
    const parts = new ResponseParts({
      message,
      context: { url, requestBodyValues: {}, statusCode: 200, responseHeaders: {} },
      mapperFor: () => mapper,
      parse: () => ({ success: true, value: {}, rawValue: {} }),
    });
    message.destroy(new Error("connection reset"));
    await new Promise((resolve) => message.once("close", resolve));
    const outcome = await new Promise<unknown>((resolve) => parts.push({ part: () => {}, end: () => resolve("ended"), fail: resolve }));
    expect(outcome).toMatchObject({ message: "Failed to process successful response", cause: { message: "connection reset" } });
  });
});
