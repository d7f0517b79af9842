import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { approvalSchema, conversationSchema, itemSchema, questionSchema, sessionSchema, turnSchema, type Item } from "../events/entities";
import type { ChatServer } from "./chat-server";

/** The server answered with an error body (`{"error": {code, message}}`, DESIGN §8). */
export class ChatApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ChatApiError";
  }
}

/** No answer at all: nothing listens there, or the connection broke. */
export class ChatConnectionError extends Error {
  constructor(url: string, options: { cause: unknown }) {
    super(`cannot reach Atrium at ${url} (${describeCause(options.cause)})`, options);
    this.name = "ChatConnectionError";
  }
}

export type SendMode = "auto" | "steer" | "queue" | "jump";

const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
const itemsPage = z.object({ items: z.array(itemSchema), nextCursor: z.number().int().nullable() });
const sentMessage = z.object({
  message: z.object({ id: z.string(), mode: z.string(), status: z.enum(["started", "steered", "queued", "jumped"]) }),
  turn: turnSchema.nullable(),
});
export type SentMessage = z.infer<typeof sentMessage>;

const PAGE_LIMIT = 500;
/** Attempts for a mutating call whose answer was lost; safe because each carries one requestKey. */
const SEND_ATTEMPTS = 3;
const SEND_RETRY_MS = 300;

/**
 * The HTTP API as `atrium chat` uses it, for one conversation. The server is looked up on
 * every request so a client outlives a restart on another port.
 */
export class ChatApi {
  constructor(
    private readonly resolveServer: () => ChatServer,
    readonly conversationId: string,
  ) {}

  async conversation() {
    return (await this.get(`/api/conversations/${this.conversationId}`, z.object({ conversation: conversationSchema }))).conversation;
  }

  async sessions() {
    return (await this.get(`/api/conversations/${this.conversationId}/sessions`, z.object({ sessions: z.array(sessionSchema) }))).sessions;
  }

  async turn(turnId: string) {
    return (await this.get(`/api/turns/${turnId}`, z.object({ turn: turnSchema }))).turn;
  }

  async pendingApprovals() {
    const { approvals } = await this.get("/api/approvals?status=pending", z.object({ approvals: z.array(approvalSchema) }));
    return approvals.filter((approval) => approval.conversationId === this.conversationId);
  }

  /** The root session's last `count` items; the API pages forward only, so this walks to the end. */
  async recentItems(count: number): Promise<{ items: Item[]; total: number }> {
    let recent: Item[] = [];
    let total = 0;
    await this.walkItems(0, (page) => {
      total += page.length;
      recent = [...recent, ...page].slice(-count);
    });
    return { items: recent, total };
  }

  async itemsAfter(seq: number): Promise<Item[]> {
    const items: Item[] = [];
    await this.walkItems(seq, (page) => items.push(...page));
    return items;
  }

  /** Opens the SSE stream; the caller reads the body. */
  async openEvents(lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    const response = await this.fetch(`/api/conversations/${this.conversationId}/events`, { headers, signal });
    if (!response.ok) throw await apiError(response);
    return response;
  }

  sendMessage(text: string, mode: SendMode): Promise<SentMessage> {
    return this.mutate(`/api/conversations/${this.conversationId}/messages`, { text, mode }, sentMessage);
  }

  async interrupt() {
    return (await this.mutate(`/api/conversations/${this.conversationId}/interrupt`, {}, z.object({ turn: turnSchema.nullable() }))).turn;
  }

  async decideApproval(approvalId: string, decision: "approve" | "deny") {
    return (await this.mutate(`/api/approvals/${approvalId}`, { decision }, z.object({ approval: approvalSchema }))).approval;
  }

  async answerQuestion(questionId: string, text: string) {
    return (await this.mutate(`/api/questions/${questionId}/answer`, { text }, z.object({ question: questionSchema }))).question;
  }

  private async walkItems(after: number, onPage: (items: Item[]) => void): Promise<void> {
    let cursor: number | null = after;
    while (cursor !== null) {
      const pathname: string = `/api/conversations/${this.conversationId}/items?after=${cursor}&limit=${PAGE_LIMIT}`;
      const page: z.infer<typeof itemsPage> = await this.get(pathname, itemsPage);
      onPage(page.items);
      cursor = page.nextCursor;
    }
  }

  private async get<Schema extends z.ZodType>(pathname: string, schema: Schema): Promise<z.infer<Schema>> {
    return readBody(await this.fetch(pathname, {}), schema);
  }

  /**
   * POSTs with a fresh requestKey and retries a lost answer with the same key: the server
   * answers a repeat exactly as the first time and does nothing again (DESIGN §3).
   */
  private async mutate<Schema extends z.ZodType>(pathname: string, body: object, schema: Schema): Promise<z.infer<Schema>> {
    const init = { method: "POST", body: JSON.stringify({ ...body, requestKey: `chat-${randomUUID()}` }) };
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await readBody(await this.fetch(pathname, init), schema);
      } catch (error) {
        const temporary = error instanceof ChatConnectionError || (error instanceof ChatApiError && error.status >= 502);
        if (!temporary || attempt >= SEND_ATTEMPTS) throw error;
        await delay(SEND_RETRY_MS * attempt);
      }
    }
  }

  private async fetch(pathname: string, init: { method?: string; body?: string; headers?: Record<string, string>; signal?: AbortSignal }) {
    const server = this.resolveServer();
    const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json", ...init.headers };
    try {
      return await fetch(`${server.url}${pathname}`, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ChatConnectionError(server.url, { cause: error });
    }
  }
}

async function readBody<Schema extends z.ZodType>(response: Response, schema: Schema): Promise<z.infer<Schema>> {
  if (!response.ok) throw await apiError(response);
  const parsed = schema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new ChatApiError(response.status, "bad_response", `unexpected answer from ${response.url}: ${parsed.error.message}`);
  return parsed.data;
}

async function apiError(response: Response): Promise<ChatApiError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = errorBody.safeParse(body);
  if (parsed.success) return new ChatApiError(response.status, parsed.data.error.code, parsed.data.error.message);
  return new ChatApiError(response.status, `http_${response.status}`, `HTTP ${response.status} ${response.statusText}`.trim());
}

function describeCause(cause: unknown): string {
  const inner = (cause as { cause?: unknown } | null)?.cause ?? cause;
  const code = (inner as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return inner instanceof Error ? inner.message : String(inner);
}
