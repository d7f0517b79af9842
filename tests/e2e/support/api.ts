import type { APIRequestContext } from "@playwright/test";
import type { Conversation } from "../../../lib/events/entities";
import { waitUntil } from "../../support/wait-until";
import { E2E_TOKEN } from "./environment";

/** Setup through the real HTTP API with the bearer token, for state a test is not about. */
export class AtriumApi {
  constructor(private readonly request: APIRequestContext) {}

  private headers() {
    return { authorization: `Bearer ${E2E_TOKEN}` };
  }

  async createConversation(text: string, options: { cwd?: string; model?: string; agent?: string } = {}): Promise<Conversation> {
    const response = await this.request.post("/api/conversations", { headers: this.headers(), data: { text, ...options } });
    if (response.status() !== 201) throw new Error(`creating a conversation answered ${response.status()}: ${await response.text()}`);
    return ((await response.json()) as { conversation: Conversation }).conversation;
  }

  /** A GET of any route with the bearer token: status and parsed body. */
  async get(url: string): Promise<{ status: number; body: unknown }> {
    const response = await this.request.get(url, { headers: this.headers() });
    return { status: response.status(), body: await response.json() };
  }

  async getConversation(id: string): Promise<Conversation> {
    const response = await this.request.get(`/api/conversations/${id}`, { headers: this.headers() });
    if (!response.ok()) throw new Error(`reading conversation ${id} answered ${response.status()}`);
    return ((await response.json()) as { conversation: Conversation }).conversation;
  }

  async patchConversation(id: string, patch: Record<string, unknown>): Promise<Conversation> {
    const response = await this.request.patch(`/api/conversations/${id}`, { headers: this.headers(), data: patch });
    if (!response.ok()) throw new Error(`patching conversation ${id} answered ${response.status()}: ${await response.text()}`);
    return ((await response.json()) as { conversation: Conversation }).conversation;
  }

  async items(id: string): Promise<Array<{ id: string; kind: string; text?: string; status: string }>> {
    const response = await this.request.get(`/api/conversations/${id}/items?limit=500`, { headers: this.headers() });
    return ((await response.json()) as { items: Array<{ id: string; kind: string; text?: string; status: string }> }).items;
  }

  async sendMessage(id: string, text: string): Promise<void> {
    const response = await this.request.post(`/api/conversations/${id}/messages`, { headers: this.headers(), data: { text } });
    if (response.status() !== 202) throw new Error(`sending a message answered ${response.status()}: ${await response.text()}`);
  }

  /** Sends `count` messages with mode queue (the conversation must be busy for them to wait). */
  async queueMessages(id: string, count: number, prefix = "queued"): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      const response = await this.request.post(`/api/conversations/${id}/messages`, { headers: this.headers(), data: { text: `${prefix} ${index}`, mode: "queue" } });
      if (response.status() !== 202) throw new Error(`queueing a message answered ${response.status()}: ${await response.text()}`);
    }
  }

  /** Decides every approval of the conversation as it comes, until no turn is open. */
  async decideUntilIdle(id: string, decision: "approve" | "deny", timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => {
        const response = await this.request.get("/api/approvals?status=pending", { headers: this.headers() });
        const { approvals } = (await response.json()) as { approvals: Array<{ id: string; conversationId: string }> };
        for (const approval of approvals.filter((candidate) => candidate.conversationId === id)) {
          await this.request.post(`/api/approvals/${approval.id}`, { headers: this.headers(), data: { decision } });
        }
        return (await this.getConversation(id)).status === "idle";
      },
      `conversation ${id} to settle`,
      timeoutMs,
      100,
    );
  }

  /** SSE responses the server holds open right now (all routes), from /api/health. */
  async openStreams(): Promise<number> {
    const response = await this.request.get("/api/health", { headers: this.headers() });
    return ((await response.json()) as { streams: number }).streams;
  }

  /** Resolves once no turn of the conversation is open (polls the API; nothing is slept on). */
  async waitUntilIdle(id: string, timeoutMs = 30_000): Promise<void> {
    await waitUntil(async () => (await this.getConversation(id)).status === "idle", `conversation ${id} to be idle`, timeoutMs, 100);
  }
}
