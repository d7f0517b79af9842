import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MachineMessage } from "@/lib/machines/link-protocol";
import { MachineMcpServers } from "@/lib/machines/machine-mcp";
import { MachineRoots } from "@/lib/machines/machine-paths";
import { toolSandbox } from "@/lib/sandbox/tool-sandbox";
import { pollUntil } from "../../support/poll";

/** A stand-in server: prints its pid, then waits on stdin like a stdio MCP server. */
const SERVER = { command: process.execPath, args: ["-e", "console.log(JSON.stringify({pid:process.pid}));process.stdin.resume()"], env: {}, envFrom: {} };

let root: string;
let host: MachineMcpServers | undefined;

afterEach(() => {
  host?.stopAll();
  fs.rmSync(root, { recursive: true, force: true });
});

function machineHost(bufferedBytes = () => 0): { host: MachineMcpServers; sent: MachineMessage[] } {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-mcp-host-"));
  const sent: MachineMessage[] = [];
  host = new MachineMcpServers({
    roots: new MachineRoots([root]),
    sandbox: toolSandbox({ mode: "off", network: true, writable: [] }, path.join(root, "home")),
    env: { PATH: process.env.PATH },
    send: (message) => sent.push(message),
    bufferedBytes,
    log: () => undefined,
  });
  return { host, sent };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pids(sent: MachineMessage[]): number[] {
  return sent.flatMap((message) => (message.type === "mcp_line" ? [(JSON.parse(message.line) as { pid: number }).pid] : []));
}

describe("the MCP servers a machine runs for its gateway", () => {
  it("answers a start it cannot spawn with an exit frame instead of crashing the machine", () => {
    const { host, sent } = machineHost();
    expect(() => host.start("mcp-1", { ...SERVER, command: "no\u0000such" })).not.toThrow();
    expect(sent).toEqual([expect.objectContaining({ type: "mcp_exit", relayId: "mcp-1", reason: expect.stringContaining("could not start") })]);
  });

  it("runs one process per relay id: a repeated start stops the one before, and stopAll stops the rest", async () => {
    const { host, sent } = machineHost();
    host.start("mcp-1", SERVER);
    await pollUntil(() => pids(sent).length === 1, { what: "the first server's pid", timeoutMs: 20_000 });
    host.start("mcp-1", SERVER);
    await pollUntil(() => pids(sent).length === 2, { what: "the second server's pid", timeoutMs: 20_000 });
    const [first, second] = pids(sent);
    await pollUntil(() => !alive(first), { what: "the replaced server to exit", timeoutMs: 20_000 });
    expect(alive(second)).toBe(true);
    host.stopAll();
    await pollUntil(() => !alive(second), { what: "the last server to exit", timeoutMs: 20_000 });
    // A stopped server's exit is not reported: the gateway asked for it.
    expect(sent.filter((message) => message.type === "mcp_exit")).toEqual([]);
  }, 60_000);

  it("pauses a server's stdout while the link is backed up and resumes it when it drains, dropping no message", async () => {
    let backedUp = true;
    const { host, sent } = machineHost(() => (backedUp ? 64 * 1024 * 1024 : 0));
    const lines = () => sent.filter((message) => message.type === "mcp_line").length;
    // 100 messages, one every 10 ms, then a file saying all were written (into the pipe, whoever reads it).
    const script = 'let n=0;const t=setInterval(()=>{console.log(JSON.stringify({n:n++}));if(n===100){clearInterval(t);require("fs").writeFileSync("written","")}},10);process.stdin.resume()';
    host.start("mcp-1", { command: process.execPath, args: ["-e", script], env: {}, envFrom: {} });
    await pollUntil(() => fs.existsSync(path.join(root, "written")), { what: "the server to write all its messages", timeoutMs: 20_000 });
    expect(lines()).toBeGreaterThan(0);
    expect(lines()).toBeLessThan(100);
    backedUp = false;
    await pollUntil(() => lines() === 100, { what: "every message after the link drained", timeoutMs: 20_000 });
    const numbers = sent.flatMap((message) => (message.type === "mcp_line" ? [(JSON.parse(message.line) as { n: number }).n] : []));
    expect(numbers).toEqual(Array.from({ length: 100 }, (_, index) => index));
  }, 60_000);
});
