import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { APICallError } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyReadError } from "@/lib/models/openai-compatible/network-error";
import { fetchWithIdleTimeout, nodeBodyOf } from "@/lib/models/openai-compatible/node-fetch";
import { hasOpenssl, selfSignedCertificate } from "../../support/self-signed";

/** A provider that answers nothing (`/silent`), or its headers and one chunk and then nothing (`/stalls`). */
describe("nodeFetch's idle limits (undici's headersTimeout and bodyTimeout)", () => {
  const server = http.createServer((request, response) => {
    request.resume();
    if (request.url === "/stalls") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: {}\n\n");
    }
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fails a provider silent before its headers as fetch does: TypeError('fetch failed') caused by UND_ERR_HEADERS_TIMEOUT", async () => {
    const failure = await fetchWithIdleTimeout(`${url}/silent`, { method: "POST", body: "{}" }, 100).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect((failure as TypeError).cause).toMatchObject({ code: "UND_ERR_HEADERS_TIMEOUT" });
  });

  it("fails a body that stalls with UND_ERR_BODY_TIMEOUT, which the SDK's mapping makes a retryable APICallError", async () => {
    const response = await fetchWithIdleTimeout(`${url}/stalls`, { method: "POST", body: "{}" }, 100);
    const body = nodeBodyOf(response)!;
    const chunks: string[] = [];
    body.setEncoding("utf8");
    body.on("data", (chunk: string) => chunks.push(chunk));
    const error = await new Promise<Error>((resolve) => body.once("error", resolve));
    expect(chunks.join("")).toBe("data: {}\n\n");
    expect(error).toMatchObject({ code: "UND_ERR_BODY_TIMEOUT" });
    const mapped = bodyReadError(error, { url, requestBodyValues: {}, statusCode: 200, responseHeaders: {} });
    expect(APICallError.isInstance(mapped) && mapped.isRetryable).toBe(true);
  });
});

/** node:https is taken at the first https call (lib/models/openai-compatible/node-fetch.ts): such a call still speaks TLS. */
describe.skipIf(!hasOpenssl())("nodeFetch to an https provider", () => {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-node-fetch-tls-"));
  let server: https.Server;
  let url = "";
  beforeAll(async () => {
    const { key, cert } = selfSignedCertificate(temp);
    server = https.createServer({ key, cert }, (_, response) => response.end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it("connects over TLS and refuses a certificate nobody vouches for, as fetch does", async () => {
    const failure = await fetchWithIdleTimeout(`${url}/v1/chat/completions`, { method: "POST", body: "{}" }, 5_000).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect((failure as TypeError).cause).toMatchObject({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
  });
});
