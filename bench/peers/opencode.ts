import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { sseFrames } from "../model/sse-frames";
import { monotonicMicros } from "../model/stamps";
import { httpCall } from "../support/http-call";
import type { Driver } from "./driver";
import { pollReady, portInRange } from "./process";
import { SpawnedDriver } from "./spawned-driver";

/**
 * `opencode serve`: its HTTP API (POST /session, POST /session/:id/prompt_async, GET
 * /session/:id/message) and its `/event` SSE stream, where a reply arrives as
 * message.part.delta events and a turn ends with the session going idle. Its provider is
 * `@ai-sdk/openai-compatible` (bundled in the binary) pointed at the fake model, given in
 * OPENCODE_CONFIG_CONTENT; HOME and the XDG folders point into the run's directory, and its
 * update check, models.dev fetch, LSP downloads and default plugins are switched off, so
 * nothing is fetched from the network.
 */
interface OpencodeEvent {
  type: string;
  properties: { sessionID?: string; field?: string; delta?: string; status?: { type: string }; error?: unknown };
}

export class OpencodeDriver extends SpawnedDriver implements Driver {
  private url = "";
  private events: http.ClientRequest | null = null;
  private busy = new Set<string>();

  private environment(home: string): NodeJS.ProcessEnv {
    const config = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      model: "bench/bench-fake",
      small_model: "bench/bench-fake",
      provider: {
        bench: { npm: "@ai-sdk/openai-compatible", name: "bench", options: { baseURL: `${this.fakeUrl}/v1`, apiKey: "bench" }, models: { "bench-fake": { name: "bench-fake" } } },
      },
    };
    const off = ["AUTOUPDATE", "MODELS_FETCH", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE", "CLAUDE_CODE"];
    return {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: path.join(home, "data"),
      XDG_CONFIG_HOME: path.join(home, "config"),
      XDG_CACHE_HOME: path.join(home, "cache"),
      XDG_STATE_HOME: path.join(home, "state"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      ...Object.fromEntries(off.map((name) => [`OPENCODE_DISABLE_${name}`, "1"])),
    };
  }

  async start(home: string): Promise<number> {
    const workspace = path.join(home, "workspace");
    fs.mkdirSync(workspace, { recursive: true });
    const port = await portInRange();
    this.url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    this.child = spawn(this.binary, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], { cwd: workspace, env: this.environment(home), stdio: "ignore" });
    return pollReady(`${this.url}/global/health`, this.child, started);
  }

  async settle(): Promise<void> {
    await this.call("GET", "/session");
    await new Promise<void>((resolve, reject) => {
      const parse = sseFrames((_event, data) => this.onEvent(JSON.parse(data) as OpencodeEvent, resolve));
      this.events = http.get(`${this.url}/event`, { headers: { accept: "text/event-stream" } }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`/event: HTTP ${response.statusCode}`));
        response.setEncoding("utf8");
        response.on("data", parse);
        response.on("error", () => {});
      });
      this.events.on("error", reject);
    });
  }

  private onEvent(event: OpencodeEvent, connected: () => void): void {
    const micros = monotonicMicros();
    const { sessionID, status } = event.properties;
    if (event.type === "server.connected") return connected();
    if (!sessionID) return;
    if (event.type === "message.part.delta" && event.properties.field === "text") {
      this.sink.delta(sessionID, event.properties.delta ?? "", micros);
    } else if (event.type === "session.status" && status?.type === "busy") {
      this.busy.add(sessionID);
    } else if ((event.type === "session.status" && status?.type === "idle") || event.type === "session.idle") {
      if (this.busy.delete(sessionID)) this.turnEnded(sessionID, micros, null);
    } else if (event.type === "session.error") {
      this.busy.delete(sessionID);
      this.turnEnded(sessionID, micros, JSON.stringify(event.properties.error));
    }
  }

  private async call(method: string, pathname: string, body?: object): Promise<string> {
    const response = await httpCall(`${this.url}${pathname}`, method, body ? { "content-type": "application/json" } : {}, body ? JSON.stringify(body) : undefined);
    if (!response.ok) throw new Error(`opencode ${method} ${pathname}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
    return response.text;
  }

  async create(text: string): Promise<string> {
    const { id } = JSON.parse(await this.call("POST", "/session", {})) as { id: string };
    const ended = this.firstTurn(id);
    await this.send(id, text);
    await ended;
    return id;
  }

  async send(sessionID: string, text: string): Promise<void> {
    await this.call("POST", `/session/${sessionID}/prompt_async`, { parts: [{ type: "text", text }] });
  }

  history(sessionID: string): Promise<string> {
    return this.call("GET", `/session/${sessionID}/message`);
  }

  override async kill(): Promise<void> {
    this.events?.destroy();
    await super.kill();
  }

  override async stop(): Promise<void> {
    this.events?.destroy();
    await super.stop();
  }
}
