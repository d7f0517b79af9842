import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { MACHINE_CONNECT_PATH, type GatewayMessage } from "@/lib/machines/link-protocol";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { waitUntil } from "../../support/wait-until";

/**
 * DESIGN §10b: a machine "runs what the gateway asks only inside its roots", and issue 23 asks for
 * paths outside the roots to be refused "on the machine itself, not only at the gateway". Here the
 * gateway is a bare WebSocket server speaking the link protocol with none of the gateway's own
 * checks, asking a real `atrium machine connect` process for work outside its root.
 */
let temp: string;
let root: string;
let outside: string;
let server: WebSocketServer;
let link: WebSocket;
let machine: MachineProcess;
const answers: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atrium-hostile-")));
  root = path.join(temp, "work");
  outside = path.join(temp, "private");
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
  fs.writeFileSync(path.join(outside, "AGENTS.md"), "private instructions\n");
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
  server = new WebSocketServer({ host: "127.0.0.1", port: 0, path: MACHINE_CONNECT_PATH });
  const linked = new Promise<WebSocket>((resolve) => {
    server.on("connection", (socket) => {
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        if (message.type === "hello") {
          send(socket, { type: "welcome", machineId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", name: "target", roots: [root] });
          resolve(socket);
        } else answers.push(message);
      });
    });
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  machine = startMachineProcess({ url, token: "atrium_machine_anything", home: path.join(temp, "home"), roots: [root] });
  link = await linked;
}, 60_000);

afterAll(async () => {
  await machine?.stop();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  fs.rmSync(temp, { recursive: true, force: true });
});

function send(socket: WebSocket, message: GatewayMessage): void {
  socket.send(JSON.stringify(message));
}

async function answer(key: "callId" | "requestId" | "relayId", id: string, type: string): Promise<Record<string, unknown>> {
  await waitUntil(() => answers.some((candidate) => candidate[key] === id && candidate.type === type), `the machine's ${type} for ${id}`, 20_000, 20);
  return answers.find((candidate) => candidate[key] === id && candidate.type === type)!;
}

async function call(callId: string, tool: string, input: Record<string, unknown>, cwd = root): Promise<{ status: string; output: string }> {
  send(link, { type: "call", callId, tool, input, cwd });
  const result = (await answer("callId", callId, "result")).result as { status: string; output: string; streamed?: boolean };
  // The output streamed in output frames comes first; the result carries the rest.
  const streamed = answers.filter((frame) => frame.type === "output" && frame.callId === callId).map((frame) => String(frame.delta));
  return { status: result.status, output: streamed.join("") + result.output };
}

describe("a machine asked for work outside its roots by a gateway that checks nothing", () => {
  it("runs what is inside its root (the link works)", async () => {
    expect(await call("inside", "shell", { command: "echo ran-$(pwd)" })).toMatchObject({ status: "completed", output: `ran-${root}\n` });
  });

  it("refuses a tool call whose cwd is outside the roots, and runs nothing there", async () => {
    const result = await call("cwd", "shell", { command: "touch planted-by-shell" }, outside);
    expect(result.status).toBe("failed");
    expect(result.output).toContain("Refused by the machine");
    expect(fs.existsSync(path.join(outside, "planted-by-shell"))).toBe(false);
  });

  it("refuses file paths leaving the roots: absolute, .., and through a symlink", async () => {
    for (const [id, tool, input] of [
      ["absolute", "read_file", { path: path.join(outside, "secret.txt") }],
      ["dotdot", "write_file", { path: "../private/planted.txt", content: "x" }],
      ["symlink", "read_file", { path: "link.txt" }],
      ["edit", "edit_file", { path: "link.txt", old: "outside", new: "changed" }],
      ["list", "list_dir", { path: "../private" }],
    ] as const) {
      const result = await call(id, tool, input);
      expect(result.status, id).toBe("failed");
      expect(result.output, id).toContain("Refused by the machine");
      expect(result.output, id).not.toContain("outside\n");
    }
    expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("outside\n");
  });

  it("answers a cwd check, a project read, a snapshot and an MCP start outside the roots with a refusal", async () => {
    send(link, { type: "check_cwd", requestId: "check", cwd: outside });
    expect(await answer("requestId", "check", "cwd_checked")).toMatchObject({ error: "cwd_outside_roots", path: null });
    send(link, { type: "read_project", requestId: "project", cwd: outside });
    expect(await answer("requestId", "project", "project")).toMatchObject({ agentsFile: null, skills: [], agents: [] });
    send(link, { type: "snapshot_op", requestId: "snapshot", op: "snapshot", cwd: outside });
    const snapshot = await answer("requestId", "snapshot", "snapshot_done");
    expect(snapshot.error).toContain("outside");
    send(link, { type: "mcp_start", relayId: "relay", spec: { command: "touch", args: [path.join(outside, "planted-by-mcp")], env: {}, envFrom: {}, cwd: outside } });
    expect(String((await answer("relayId", "relay", "mcp_exit")).reason)).toContain("outside");
    expect(fs.existsSync(path.join(outside, "planted-by-mcp"))).toBe(false);
  });
});
