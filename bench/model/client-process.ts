import http from "node:http";
import { sseFrames } from "./sse-frames";
import { monotonicMicros, StampReader } from "./stamps";

/**
 * The SSE client of the model-stream figure, in its own process as a browser is: one
 * multiplexed `GET /api/stream` carrying every conversation of the run (what the browser's
 * shared connection does), each frame JSON-parsed before its words count as received. It
 * can also read the fake model directly, for the loopback floor. Driven by ./client-handle.ts.
 */
export type ClientCommand =
  | { type: "open"; url: string; token: string; conversationIds: string[] }
  | { type: "expect"; conversationIds: string[]; words: number }
  | { type: "direct"; url: string; prompts: string[] }
  | { type: "exit" };

export interface Received {
  /** Added latency in ms of every stamped word, by the fake model's tag. */
  latencies: Record<string, number[]>;
  words: number;
  /** SSE frames carrying text deltas (the server may merge several model deltas into one). */
  frames: number;
}

export type ClientReply =
  | { type: "opened" }
  | { type: "expecting" }
  | { type: "done"; received: Received }
  | { type: "failed"; message: string };

function reply(message: ClientReply): void {
  process.send!(message);
}

function fail(error: unknown): void {
  reply({ type: "failed", message: error instanceof Error ? error.message : String(error) });
}

function merged(readers: Iterable<StampReader>, frames: number): Received {
  const latencies: Record<string, number[]> = {};
  let words = 0;
  for (const reader of readers) {
    for (const [tag, values] of reader.latencies) latencies[tag] = [...(latencies[tag] ?? []), ...values];
    words += reader.words;
  }
  return { latencies, words, frames };
}

interface Expectation {
  words: number;
  readers: Map<string, StampReader>;
  ended: Set<string>;
  frames: number;
}

let expectation: Expectation | null = null;

function checkDone(): void {
  if (!expectation) return;
  for (const [conversationId, reader] of expectation.readers) {
    if (reader.words < expectation.words || !expectation.ended.has(conversationId)) return;
  }
  const done = expectation;
  expectation = null;
  reply({ type: "done", received: merged(done.readers.values(), done.frames) });
}

interface ConversationFrame {
  event: { type: string; conversationId: string; field?: string; delta?: string; turn?: { status: string; error: { message: string } | null } };
}

function onConversationFrame(data: string): void {
  const { event } = (JSON.parse(data) as ConversationFrame);
  const receivedMicros = monotonicMicros();
  const reader = expectation?.readers.get(event.conversationId);
  if (!expectation || !reader) return;
  if (event.type === "item.delta" && event.field === "text") {
    expectation.frames += 1;
    reader.push(event.delta ?? "", receivedMicros);
  } else if (event.type === "turn.ended") {
    if (event.turn?.status !== "completed") return fail(new Error(`turn ended ${event.turn?.status}: ${event.turn?.error?.message}`));
    reader.finish(receivedMicros);
    // Deltas come before their turn.ended on the one ordered stream: a word missing now is lost.
    if (reader.words < expectation.words) {
      return fail(new Error(`conversation ${event.conversationId}: turn ended after ${reader.words} of ${expectation.words} words`));
    }
    expectation.ended.add(event.conversationId);
    checkDone();
  }
}

function open(command: Extract<ClientCommand, { type: "open" }>): void {
  const headers = { authorization: `Bearer ${command.token}` };
  const parse = sseFrames((event, data) => {
    if (event === "conversation") return onConversationFrame(data);
    if (event !== "stream.opened") return;
    const { streamId } = JSON.parse(data) as { streamId: string };
    const add = command.conversationIds.map((conversationId) => ({ key: conversationId, conversationId }));
    fetch(`${command.url}/api/stream/${streamId}/subscriptions`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ add }),
    }).then(
      (response) => (response.ok ? reply({ type: "opened" }) : fail(new Error(`subscriptions: HTTP ${response.status}`))),
      fail,
    );
  });
  const request = http.get(`${command.url}/api/stream`, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
    if (response.statusCode !== 200) return fail(new Error(`/api/stream: HTTP ${response.statusCode}`));
    response.setEncoding("utf8");
    response.on("data", parse);
    // The server went away: a turn still expected would otherwise wait for the round's timeout.
    response.on("close", () => {
      if (expectation) fail(new Error("/api/stream closed while turns were expected"));
    });
  });
  request.on("error", fail);
}

/** The floor: the same prompts straight to the fake model, no Atrium between. */
function direct(command: Extract<ClientCommand, { type: "direct" }>): void {
  const readers = new Map(command.prompts.map((prompt) => [prompt, new StampReader()]));
  let finished = 0;
  let frames = 0;
  for (const [prompt, reader] of readers) {
    const body = JSON.stringify({ model: "bench-fake", stream: true, messages: [{ role: "user", content: prompt }] });
    const request = http.request(`${command.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" } }, (response) => {
      response.setEncoding("utf8");
      response.on(
        "data",
        sseFrames((_event, data) => {
          if (data === "[DONE]") {
            reader.finish(monotonicMicros());
            if ((finished += 1) === readers.size) reply({ type: "done", received: merged(readers.values(), frames) });
            return;
          }
          const chunk = JSON.parse(data) as { choices: Array<{ delta: { content?: string } }> };
          const content = chunk.choices[0]?.delta.content;
          if (content) {
            frames += 1;
            reader.push(content, monotonicMicros());
          }
        }),
      );
    });
    request.on("error", fail);
    request.end(body);
  }
}

process.on("message", (command: ClientCommand) => {
  try {
    if (command.type === "exit") process.exit(0);
    else if (command.type === "open") open(command);
    else if (command.type === "direct") direct(command);
    else {
      const readers = new Map(command.conversationIds.map((id) => [id, new StampReader()]));
      expectation = { words: command.words, readers, ended: new Set(), frames: 0 };
      reply({ type: "expecting" });
    }
  } catch (error) {
    fail(error);
  }
});
process.on("disconnect", () => process.exit(0));
