import os from "node:os";
import WebSocket from "ws";
import type { ToolSandbox } from "../sandbox/sandbox-policy";
import type { SnapshotStore } from "../checkpoints/snapshot-store";
import { sandboxBackend } from "../sandbox/sandbox-policy";
import { gatewayMessageSchema, LINK_PROTOCOL, MACHINE_CONNECT_PATH, parseFrame, REVOKED_CLOSE_CODE, TRY_AGAIN_CLOSE_CODE, type MachineMessage } from "./link-protocol";
import type { MachineRoots } from "./machine-paths";
import { MachineWorker } from "./machine-worker";

export interface ConnectOptions {
  /** The gateway's base URL (http or https; the link is ws or wss accordingly). */
  url: string;
  token: string;
  name: string | null;
  roots: MachineRoots;
  sandbox: ToolSandbox;
  env: Record<string, string | undefined>;
  /** What MCP servers started here may read: the tool allowlist plus the names shared with `--mcp-env`. */
  mcpEnv: Record<string, string | undefined>;
  snapshots: SnapshotStore;
  print(line: string): void;
  /** The gateway pings every 10 s; a link silent for this long is taken for dead and redialled. */
  silenceMs?: number;
}

/** Why a link ended: dial again after a pause, or stop for good. */
export type LinkEnd = { kind: "retry"; reason: string; linked: boolean } | { kind: "stop"; reason: string };

/** Backoff before dial attempt n (from 0): 1, 2, 4 … 30 s, each cut to a random 50–100 % so machines do not redial in step. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 1000 * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * `atrium machine connect` (DESIGN §10b): dials out to the gateway, keeps one link, redials
 * with jittered backoff when it drops (the gateway restarting included), and stops only when
 * the gateway refuses the token or revokes the machine. Resolves with the exit status.
 */
export async function connectMachine(options: ConnectOptions): Promise<number> {
  for (let attempt = 0; ; ) {
    const end = await linkOnce(options);
    if (end.kind === "stop") {
      options.print(`stopped: ${end.reason}`);
      return 1;
    }
    attempt = end.linked ? 0 : attempt + 1;
    const delay = backoffMs(attempt);
    options.print(`${end.reason}; dialling again in ${(delay / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function linkUrl(base: string): string {
  const url = new URL(MACHINE_CONNECT_PATH, base);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

function linkOnce(options: ConnectOptions): Promise<LinkEnd> {
  return new Promise((resolve) => {
    const socket = new WebSocket(linkUrl(options.url), { headers: { authorization: `Bearer ${options.token}` }, handshakeTimeout: 10_000 });
    const worker = new MachineWorker(socket, { roots: options.roots, sandbox: options.sandbox, env: options.env, mcpEnv: options.mcpEnv, snapshots: options.snapshots, log: options.print });
    let linked = false;
    let ended = false;
    let silence: NodeJS.Timeout | undefined;
    const end = (result: LinkEnd) => {
      if (ended) return;
      ended = true;
      clearTimeout(silence);
      worker.stopAll();
      socket.terminate();
      resolve(result);
    };
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => end({ kind: "retry", reason: "the gateway went silent", linked }), options.silenceMs ?? 35_000);
    };
    socket.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      if (status === 401) end({ kind: "stop", reason: "the gateway refused this token (revoked, or made by another gateway)" });
      else end({ kind: "retry", reason: status === 409 ? "another process is linked with this token" : `the gateway answered ${status}`, linked });
    });
    socket.on("open", () => {
      heard();
      socket.send(JSON.stringify(hello(options)));
    });
    socket.on("ping", heard);
    socket.on("message", (data) => {
      heard();
      const message = parseFrame(gatewayMessageSchema, data);
      if (!message) return;
      if (message.type === "welcome") {
        linked = true;
        options.print(`connected to ${options.url} as ${message.name}; roots: ${message.roots.join(", ") || "(none allowed)"}`);
        return;
      }
      worker.handle(message);
    });
    socket.on("close", (code, reason) => end(closedLink(code, reason.toString(), linked)));
    socket.on("error", (error) => end({ kind: "retry", reason: `cannot reach ${options.url}: ${error.message}`, linked }));
  });
}

/** How a link closed by the gateway ends: revoked stops; a link it could not keep counts as never linked (the backoff grows). */
export function closedLink(code: number, reason: string, linked: boolean): LinkEnd {
  if (code === REVOKED_CLOSE_CODE) return { kind: "stop", reason: `the gateway revoked this machine (${reason || "revoked"})` };
  return { kind: "retry", reason: `the link closed (${code}${reason ? ` ${reason}` : ""})`, linked: linked && code !== TRY_AGAIN_CLOSE_CODE };
}

function hello(options: ConnectOptions): MachineMessage {
  const backend = sandboxBackend(options.sandbox);
  return {
    type: "hello",
    protocol: LINK_PROTOCOL,
    name: options.name,
    hostname: os.hostname(),
    platform: `${process.platform}-${process.arch}`,
    roots: options.roots.roots,
    sandbox: options.sandbox.policy.mode === "off" ? "off" : `${options.sandbox.policy.mode} (${backend === "unavailable" ? "unavailable" : backend})`,
  };
}
