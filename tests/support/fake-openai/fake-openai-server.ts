import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { chatCompletionsProtocol } from "./chat-completions";
import { openAIErrorBody } from "./error-body";
import type { FakeStep, RecordedRequest } from "./fake-step";
import type { GenerationRequest, Protocol } from "./protocol";
import { responsesProtocol } from "./responses-api";
import { respondWithStep } from "./step-responder";

export interface FakeOpenAIServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Each generation request consumes the next step; with the queue empty the default step answers. */
  enqueue(...steps: FakeStep[]): void;
  /** The step used when the queue is empty; initially the text "ok". */
  setDefault(step: FakeStep): void;
  /** Resolves once at least `count` requests have arrived (to act while a `hang` step holds one open). */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  /** Ends every open connection (hanging ones included) and stops listening; safe to call twice. */
  close(): Promise<void>;
}

export const FAKE_MODEL_ID = "fake-model";

// A fixed creation time keeps responses deterministic.
const CREATED_AT = 1_700_000_000;

/** Starts a scripted OpenAI-compatible server on loopback, on a free port. */
export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const queue: FakeStep[] = [];
  let defaultStep: FakeStep = { type: "text", text: "ok" };
  let idCounter = 0;
  const waiters: Array<{ count: number; resolve: (requests: RecordedRequest[]) => void }> = [];

  const nextId = (prefix: string) => `${prefix}_fake_${++idCounter}`;

  const record = (request: RecordedRequest) => {
    requests.push(request);
    for (const waiter of waiters.filter((candidate) => requests.length >= candidate.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(requests);
    }
  };

  const generate = async <Request extends GenerationRequest>(
    protocol: Protocol<Request>,
    body: unknown,
    response: ServerResponse,
  ) => {
    const parsed = protocol.parseRequest(body);
    if (!parsed.success) return sendJson(response, 400, openAIErrorBody(400, parsed.message));
    const step = queue.shift() ?? defaultStep;
    await respondWithStep(step, protocol, parsed.request, response, { nextId, createdAt: CREATED_AT });
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    const method = incoming.method ?? "GET";
    const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
    const text = await readBody(incoming);
    const body = parseJson(text);
    record({ method, path, body: body.success ? body.value : text, headers: flattenHeaders(incoming) });

    const route = `${method} ${path}`;
    if (route === "GET /v1/models") {
      return sendJson(response, 200, {
        object: "list",
        data: [{ id: FAKE_MODEL_ID, object: "model", created: CREATED_AT, owned_by: "fake" }],
      });
    }
    if (route !== "POST /v1/chat/completions" && route !== "POST /v1/responses") {
      return sendJson(response, 404, openAIErrorBody(404, `Unknown route ${route} (fake server)`));
    }
    if (!body.success) return sendJson(response, 400, openAIErrorBody(400, `Body is not JSON: ${body.message}`));
    if (route === "POST /v1/responses") await generate(responsesProtocol, body.value, response);
    else await generate(chatCompletionsProtocol, body.value, response);
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      // A bug in the fake must fail the client's call loudly, not leave it waiting.
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) response.destroy(error instanceof Error ? error : new Error(message));
      else sendJson(response, 500, openAIErrorBody(500, `Fake server failure: ${message}`));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The fake OpenAI server has no TCP address");

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    enqueue(...steps) {
      queue.push(...steps);
    },
    setDefault(step) {
      defaultStep = step;
    },
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve(requests)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets and hanging responses would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function parseJson(text: string): { success: true; value: unknown } | { success: false; message: string } {
  if (text.length === 0) return { success: true, value: undefined };
  try {
    return { success: true, value: JSON.parse(text) };
  } catch (error) {
    return { success: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function flattenHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}
