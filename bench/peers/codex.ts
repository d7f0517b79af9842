import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { monotonicMicros } from "../model/stamps";
import type { Driver } from "./driver";
import { SpawnedDriver } from "./spawned-driver";

/**
 * Codex's `codex app-server`: JSON-RPC, one JSON object a line, over stdio, as its IDE
 * extensions drive it (initialize → initialized → thread/start → turn/start; the reply streams
 * as item/agentMessage/delta notifications and ends with turn/completed). Its model provider is
 * the fake model over the Responses API (Codex has no chat-completions wire any more), set in
 * a config.toml of a CODEX_HOME of its own; approvals are off and the sandbox is not used,
 * since no turn here runs a tool.
 */
const REQUEST_TIMEOUT_MS = 60_000;

interface RpcMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export class CodexDriver extends SpawnedDriver implements Driver {
  private nextId = 0;
  private pending = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  private workspace = "";

  private writeConfig(codexHome: string): void {
    fs.mkdirSync(codexHome, { recursive: true });
    const config = [
      `model = "bench-fake"`,
      `model_provider = "bench"`,
      `approval_policy = "never"`,
      `sandbox_mode = "danger-full-access"`,
      `check_for_update_on_startup = false`,
      `[model_providers.bench]`,
      `name = "bench"`,
      `base_url = "${this.fakeUrl}/v1"`,
      `wire_api = "responses"`,
      "",
    ].join("\n");
    fs.writeFileSync(path.join(codexHome, "config.toml"), config);
  }

  async start(home: string): Promise<number> {
    const codexHome = path.join(home, "codex-home");
    this.workspace = path.join(home, "workspace");
    fs.mkdirSync(this.workspace, { recursive: true });
    if (!fs.existsSync(path.join(codexHome, "config.toml"))) this.writeConfig(codexHome);
    const started = performance.now();
    const child = spawn(this.binary, ["app-server"], { cwd: this.workspace, env: { ...process.env, CODEX_HOME: codexHome }, stdio: ["pipe", "pipe", "ignore"] });
    this.child = child;
    child.stdin!.on("error", () => {});
    readline.createInterface({ input: child.stdout! }).on("line", (line) => this.onLine(line));
    child.once("exit", (code, signal) => {
      for (const { reject } of this.pending.values()) reject(new Error(`codex app-server exited (${code ?? signal})`));
      this.pending.clear();
    });
    await this.request("initialize", { clientInfo: { name: "atrium-bench", title: null, version: "0" }, capabilities: null });
    const readyMs = performance.now() - started;
    this.notify("initialized", {});
    return readyMs;
  }

  private onLine(line: string): void {
    const message = JSON.parse(line) as RpcMessage;
    const micros = monotonicMicros();
    if (message.id !== undefined && message.method === undefined) {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result ?? {});
      return;
    }
    const params = message.params ?? {};
    if (message.method === "item/agentMessage/delta") {
      this.sink.delta(params.threadId as string, params.delta as string, micros);
    } else if (message.method === "turn/completed") {
      const threadId = params.threadId as string;
      const turn = params.turn as { status: string; error: { message?: string } | null };
      const error = turn.status === "completed" ? null : `${turn.status}: ${turn.error?.message ?? ""}`;
      this.turnEnded(threadId, micros, error);
    }
  }

  private request(method: string, params: object): Promise<Record<string, unknown>> {
    const id = (this.nextId += 1);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`codex ${method}: no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (result) => (clearTimeout(timer), resolve(result)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.child!.stdin!.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  private notify(method: string, params: object): void {
    this.child!.stdin!.write(`${JSON.stringify({ method, params })}\n`);
  }

  async settle(): Promise<void> {
    await this.request("thread/list", {});
  }

  async create(text: string): Promise<string> {
    const started = await this.request("thread/start", { cwd: this.workspace, approvalPolicy: "never", sandbox: "danger-full-access" });
    const threadId = (started.thread as { id: string }).id;
    const ended = this.firstTurn(threadId);
    await this.send(threadId, text);
    await ended;
    return threadId;
  }

  async send(threadId: string, text: string): Promise<void> {
    await this.request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
  }

  async history(threadId: string): Promise<string> {
    return JSON.stringify(await this.request("thread/read", { threadId, includeTurns: true }));
  }
}
