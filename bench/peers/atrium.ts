import http from "node:http";
import path from "node:path";
import { post, turnsEnded, writeConfig } from "../model/round";
import { sseFrames } from "../model/sse-frames";
import { monotonicMicros } from "../model/stamps";
import { BENCH_TOKEN, startBenchServer, type BenchServer } from "../support/server-process";
import type { Driver, Sink } from "./driver";
import { killTree, portInRange } from "./process";

/**
 * Atrium as the model-stream figure runs it (`npm start`'s node flags, the production build,
 * the real openai-compatible provider against the fake model), driven through its HTTP API
 * and one multiplexed `/api/stream`, as the browser is. `node` picks the Node binary; a
 * Node 24 run also gets `preload` (bench/peers/node24-sqlite.cjs), which points better-sqlite3
 * at an addon built for that Node without touching node_modules.
 */
export interface AtriumOptions {
  label: string;
  fakeUrl: string;
  node?: string;
  sqliteAddon?: string;
  /** More node flags for the server (e.g. --trace-gc), and the directory ./event-log.cjs logs its GCs to. */
  serverArgs?: string[];
  eventLog?: string;
}

interface ConversationFrame {
  event: { type: string; conversationId: string; turnId?: string; field?: string; delta?: string; turn?: { status: string; error: { message: string } | null } };
}

export class AtriumDriver implements Driver {
  private server: BenchServer | null = null;
  private stream: http.ClientRequest | null = null;
  private streamId: Promise<string> | null = null;
  /**
   * The turns that creating the conversations started. create() waits for each to end by asking
   * the API, so the stream's frames of one can still be on their way when the next turn is
   * armed: they are not that turn's words or end.
   */
  private readonly creationTurns = new Set<string>();

  constructor(
    private readonly options: AtriumOptions,
    private readonly sink: Sink,
  ) {}

  get label(): string {
    return this.options.label;
  }

  get pid(): number {
    return this.server!.child.pid!;
  }

  async start(home: string): Promise<number> {
    writeConfig(home, this.options.fakeUrl);
    const { sqliteAddon: addon, eventLog } = this.options;
    const preload = (file: string) => ["--require", path.join(import.meta.dirname, file)];
    this.server = await startBenchServer(home, await portInRange(), {
      node: this.options.node,
      nodeArgs: [...(addon ? preload("node24-sqlite.cjs") : []), ...(eventLog ? preload("event-log.cjs") : []), ...(this.options.serverArgs ?? [])],
      env: { ...(addon ? { BENCH_SQLITE_ADDON: addon } : {}), ...(eventLog ? { BENCH_EVENT_LOG: eventLog, BENCH_EVENT_ROLE: "server" } : {}) },
    });
    return this.server.readyMs;
  }

  async settle(): Promise<void> {
    const listed = await this.server!.get("/api/conversations?limit=1");
    if (!listed.ok) throw new Error(`GET /api/conversations answered ${listed.status}`);
    this.streamId = this.openStream();
    await this.streamId;
  }

  private openStream(): Promise<string> {
    return new Promise((resolve, reject) => {
      const parse = sseFrames((event, data) => {
        if (event === "stream.opened") return resolve((JSON.parse(data) as { streamId: string }).streamId);
        if (event !== "conversation") return;
        const { event: frame } = JSON.parse(data) as ConversationFrame;
        const micros = monotonicMicros();
        if (frame.turnId !== undefined && this.creationTurns.has(frame.turnId)) return;
        if (frame.type === "item.delta" && frame.field === "text") this.sink.delta(frame.conversationId, frame.delta ?? "", micros);
        else if (frame.type === "turn.ended") {
          const error = frame.turn?.status === "completed" ? null : `${frame.turn?.status}: ${frame.turn?.error?.message}`;
          this.sink.ended(frame.conversationId, micros, error);
        }
      });
      const headers = { accept: "text/event-stream", authorization: `Bearer ${BENCH_TOKEN}` };
      this.stream = http.get(`${this.server!.url}/api/stream`, { headers }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`/api/stream: HTTP ${response.statusCode}`));
        response.setEncoding("utf8");
        response.on("data", parse);
        response.on("error", () => {});
      });
      this.stream.on("error", reject);
    });
  }

  async create(text: string): Promise<string> {
    const created = await post<{ conversation: { id: string }; turn: { id: string } }>(this.server!, "/api/conversations", { text });
    const id = created.conversation.id;
    this.creationTurns.add(created.turn.id);
    await post(this.server!, `/api/stream/${await this.streamId!}/subscriptions`, { add: [{ key: id, conversationId: id }] });
    await turnsEnded(this.server!, [created.turn.id]);
    return id;
  }

  async send(conversationId: string, text: string): Promise<void> {
    await post(this.server!, `/api/conversations/${conversationId}/messages`, { text });
  }

  async history(conversationId: string): Promise<string> {
    const pages: string[] = [];
    for (let after: number | null | undefined; after !== null; ) {
      const response = await this.server!.get(`/api/conversations/${conversationId}/items?limit=500${after === undefined ? "" : `&after=${after}`}`);
      if (!response.ok) throw new Error(`GET …/items: HTTP ${response.status}`);
      const page = (await response.json()) as { nextCursor: number | null };
      pages.push(JSON.stringify(page));
      after = page.nextCursor;
    }
    return pages.join("\n");
  }

  async kill(): Promise<void> {
    this.stream?.destroy();
    await killTree(this.server!.child);
    await this.server!.stop();
  }

  async stop(): Promise<void> {
    this.stream?.destroy();
    await this.server?.stop();
  }
}
