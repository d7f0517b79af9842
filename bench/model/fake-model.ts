import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { collectGarbage } from "./collect-garbage";
import { responsesBenchRequest, streamResponses } from "./responses-stream";
import { monotonicMicros, parseBenchPrompt, stampWord, type BenchRequest } from "./stamps";

/**
 * A fake OpenAI-compatible model in its own process (plain node:http, forked by
 * bench/model/fake-model-handle.ts): `POST /v1/chat/completions` with `stream: true` answers the
 * `[bench <tag> <words> <delayMs>]` of the last user message with that many stamped words,
 * one chat.completion.chunk each, `delayMs` apart, then a finish_reason chunk, usage and
 * `data: [DONE]`. `POST /v1/responses` streams the same words in the Responses API's events
 * (./responses-stream.ts). It remembers when each tag's first request arrived, for submit →
 * model request. BENCH_FAKE_LOG=1 logs every request to stderr.
 */
export type FakeModelMessage = { type: "listening"; port: number } | { type: "arrivals"; arrivals: Record<string, number> } | { type: "collected" };
export type FakeModelCommand = { type: "arrivals" } | { type: "collect" } | { type: "exit" };

interface ChatMessage {
  role: string;
  content: string | Array<{ type: string; text?: string }> | null;
}

const arrivals = new Map<string, number>();
let nextId = 0;

function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).map((part) => part.text ?? "").join("");
}

function lastUserText(messages: ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index].role === "user") return textOf(messages[index]);
  }
  return "";
}

function chunk(id: string, model: string, delta: object, finishReason: string | null = null): string {
  const payload = {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

async function stream(response: http.ServerResponse, model: string, request: BenchRequest, promptCharacters: number): Promise<void> {
  const id = `chatcmpl-bench-${(nextId += 1)}`;
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  response.write(chunk(id, model, { role: "assistant", content: "" }));
  for (let index = 0; index < request.words; index += 1) {
    if (request.delayMs > 0) await sleep(request.delayMs);
    if (response.destroyed) return;
    // Each word ends with its space, so a word is complete in the delta that carries it.
    response.write(chunk(id, model, { content: `${stampWord(request.tag, index, monotonicMicros())} ` }));
  }
  response.write(chunk(id, model, {}, "stop"));
  const usage = { prompt_tokens: Math.ceil(promptCharacters / 4), completion_tokens: request.words * 4, total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  response.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage })}\n\n`);
  response.end("data: [DONE]\n\n");
}

/** Non-streamed calls (a title or a summary, should the server ask) get a short plain answer. */
function complete(response: http.ServerResponse, model: string): void {
  const body = {
    id: `chatcmpl-bench-${(nextId += 1)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "bench" }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function badRequest(response: http.ServerResponse): void {
  response.writeHead(400, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message: "no [bench <tag>] in the last user message", type: "invalid_request_error" } }));
}

function arrived(tag: string, micros: number): void {
  // A client may ask again for the same message (a title, say): the turn's own request is the first.
  if (!arrivals.has(tag)) arrivals.set(tag, micros);
}

function answer(request: http.IncomingMessage, response: http.ServerResponse, raw: string, arrivedMicros: number): Promise<void> | void {
  if (request.url === "/v1/responses") {
    const body = JSON.parse(raw) as { model: string; input: unknown };
    const bench = responsesBenchRequest(body.input);
    if (!bench) return badRequest(response);
    arrived(bench.tag, arrivedMicros);
    return streamResponses(response, `resp-bench-${(nextId += 1)}`, body.model, bench, raw.length);
  }
  const body = JSON.parse(raw) as { model: string; stream?: boolean; messages: ChatMessage[] };
  if (!body.stream) return complete(response, body.model);
  const bench = parseBenchPrompt(lastUserText(body.messages));
  if (!bench) return badRequest(response);
  arrived(bench.tag, arrivedMicros);
  return stream(response, body.model, bench, raw.length);
}

function handle(request: http.IncomingMessage, response: http.ServerResponse): void {
  const arrivedMicros = monotonicMicros();
  if (process.env.BENCH_FAKE_LOG === "1") console.error(`fake model: ${request.method} ${request.url}`);
  if (request.method !== "POST" || (request.url !== "/v1/chat/completions" && request.url !== "/v1/responses")) {
    response.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on("data", (data: Buffer) => chunks.push(data));
  request.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    if (process.env.BENCH_FAKE_LOG === "1") console.error(`fake model: ${raw.slice(0, 4000)}`);
    Promise.resolve().then(() => answer(request, response, raw, arrivedMicros)).catch((error: unknown) => {
      console.error("fake model:", error);
      response.destroy();
    });
  });
}

const server = http.createServer(handle);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send!({ type: "listening", port: (server.address() as AddressInfo).port } satisfies FakeModelMessage);
});

process.on("message", (command: FakeModelCommand) => {
  if (command.type === "exit") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    return;
  }
  if (command.type === "collect") {
    collectGarbage();
    process.send!({ type: "collected" } satisfies FakeModelMessage);
    return;
  }
  process.send!({ type: "arrivals", arrivals: Object.fromEntries(arrivals) } satisfies FakeModelMessage);
});
process.on("disconnect", () => process.exit(0));
