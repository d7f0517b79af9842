import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STREAMS_PER_CLIENT, StreamSlots } from "@/lib/api/stream-slots";
import { isAtriumError } from "@/lib/errors";
import { pollUntil } from "../../support/poll";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

// Issue 21, finding 8b: nothing capped open event streams (8,000 streams: RSS 417 → 946 MB).
let server: ServerProcess;
let cleanup: () => void;
let conversationId: string;

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  server = await startServerProcess(temp.home);
  const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "hello" }) });
  expect(created.status).toBe(201);
  conversationId = ((await created.json()) as { conversation: { id: string } }).conversation.id;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

interface OpenStream {
  response: Response;
  close(): void;
}

/** Opens an event stream and resolves once its answer's head is in (the body is left unread). */
async function openStream(pathname: string): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await server.api(pathname, { signal: controller.signal, headers: { accept: "text/event-stream" } });
  return { response, close: () => controller.abort() };
}

async function openStreams(): Promise<number> {
  const health = await server.api("/api/health");
  return ((await health.json()) as { streams: number }).streams;
}

describe("the event-stream cap", () => {
  it(`answers a client's stream past ${MAX_STREAMS_PER_CLIENT} with 429 too_many_streams on every stream route; closing one frees its slot`, async () => {
    const routes = ["/api/events", "/api/stream", `/api/conversations/${conversationId}/events`];
    const open: OpenStream[] = [];
    try {
      for (let index = 0; index < MAX_STREAMS_PER_CLIENT; index += 1) {
        const stream = await openStream(routes[index % routes.length]);
        expect(stream.response.status).toBe(200);
        expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
        open.push(stream);
      }
      expect(await openStreams()).toBe(MAX_STREAMS_PER_CLIENT);

      for (const route of routes) {
        const refused = await openStream(route);
        expect(refused.response.status).toBe(429);
        const body = (await refused.response.json()) as { error: { code: string; message: string } };
        expect(body.error).toMatchObject({ code: "too_many_streams", message: expect.stringContaining(`at most ${MAX_STREAMS_PER_CLIENT}`) });
      }
      expect(await openStreams()).toBe(MAX_STREAMS_PER_CLIENT);

      // A client that hangs up gives its slot back: the next stream opens.
      open.shift()!.close();
      await pollUntil(async () => (await openStreams()) === MAX_STREAMS_PER_CLIENT - 1, { what: "the closed stream's slot to be freed" });
      const again = await openStream("/api/stream");
      expect(again.response.status).toBe(200);
      open.push(again);
    } finally {
      for (const stream of open) stream.close();
    }
    await pollUntil(async () => (await openStreams()) === 0, { what: "every stream to close" });
  });
});

describe("stream slots", () => {
  it("cap each client and all clients together; a release frees one slot once", () => {
    const slots = new StreamSlots({ perClient: 2, total: 3 });
    const first = slots.acquire("a");
    slots.acquire("a");
    const refusal = (() => {
      try {
        slots.acquire("a");
      } catch (error) {
        return error;
      }
    })();
    expect(isAtriumError(refusal) && refusal.code).toBe("too_many_streams");
    slots.acquire("b");
    expect(() => slots.acquire("c")).toThrow(/server has 3 event streams open/);
    first();
    first();
    expect(slots.total).toBe(2);
    expect(slots.count("a")).toBe(1);
    slots.acquire("c");
    expect(() => slots.acquire("a")).toThrow(/at most 3/);
  });
});
