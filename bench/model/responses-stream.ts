import type http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { monotonicMicros, parseBenchPrompt, stampWord, type BenchRequest } from "./stamps";

/**
 * The fake model's `POST /v1/responses` (the OpenAI Responses API, which Codex speaks to a
 * custom provider: it no longer has a chat-completions wire): the same stamped words as the
 * chat path, one `response.output_text.delta` each, between the created / output_item /
 * completed events a client needs to open and close its message.
 */
interface ResponsesInputItem {
  type?: string;
  role?: string;
  content?: string | Array<{ type?: string; text?: string }>;
}

function itemText(item: ResponsesInputItem): string {
  if (typeof item.content === "string") return item.content;
  return (item.content ?? []).map((part) => part.text ?? "").join("");
}

/** The bench request of the last user message that carries one (clients add context messages of their own). */
export function responsesBenchRequest(input: unknown): BenchRequest | null {
  if (typeof input === "string") return parseBenchPrompt(input);
  const items = Array.isArray(input) ? (input as ResponsesInputItem[]) : [];
  for (let index = items.length - 1; index >= 0; index -= 1) {
    if (items[index].role !== "user") continue;
    const request = parseBenchPrompt(itemText(items[index]));
    if (request) return request;
  }
  return null;
}

function event(response: http.ServerResponse, type: string, fields: object): void {
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
}

export async function streamResponses(response: http.ServerResponse, id: string, model: string, request: BenchRequest, promptCharacters: number): Promise<void> {
  const itemId = `msg_${id}`;
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, error: null, incomplete_details: null };
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  event(response, "response.created", { response: { ...base, status: "in_progress", output: [] } });
  event(response, "response.output_item.added", { output_index: 0, item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] } });
  event(response, "response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  const words: string[] = [];
  for (let index = 0; index < request.words; index += 1) {
    if (request.delayMs > 0) await sleep(request.delayMs);
    if (response.destroyed) return;
    const word = `${stampWord(request.tag, index, monotonicMicros())} `;
    words.push(word);
    event(response, "response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta: word });
  }
  const text = words.join("");
  const part = { type: "output_text", text, annotations: [] };
  event(response, "response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text });
  event(response, "response.content_part.done", { item_id: itemId, output_index: 0, content_index: 0, part });
  const message = { id: itemId, type: "message", status: "completed", role: "assistant", content: [part] };
  event(response, "response.output_item.done", { output_index: 0, item: message });
  const inputTokens = Math.ceil(promptCharacters / 4);
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: request.words * 4,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + request.words * 4,
  };
  event(response, "response.completed", { response: { ...base, status: "completed", output: [message], usage } });
  response.end();
}
