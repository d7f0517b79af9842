import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sharedMcpEnvironment } from "@/lib/cli/mcp-shared-environment";
import type { MachineMessage } from "@/lib/machines/link-protocol";
import { MachineMcpServers } from "@/lib/machines/machine-mcp";
import { MachineRoots } from "@/lib/machines/machine-paths";
import { toolSandbox } from "@/lib/sandbox/tool-sandbox";
import { pollUntil } from "../../support/poll";

const MACHINE_ENV = { PATH: process.env.PATH, HOME: "/home/me", AWS_SECRET_ACCESS_KEY: "aws-secret", NOTES_TOKEN: "notes-token", ATRIUM_MACHINE_TOKEN: "machine-token" };
/** Prints the environment it was given, then waits on stdin like a stdio MCP server. */
const PRINT_ENV = { command: process.execPath, args: ["-e", "console.log(JSON.stringify(process.env));process.stdin.resume()"], env: {}, envFrom: {} };

let root: string | undefined;
let host: MachineMcpServers | undefined;

afterEach(() => {
  host?.stopAll();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function machineHost(shared: string[]): MachineMessage[] {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-mcp-env-"));
  const sent: MachineMessage[] = [];
  host = new MachineMcpServers({
    roots: new MachineRoots([root]),
    sandbox: toolSandbox({ mode: "off", network: true, writable: [] }, path.join(root, "home")),
    env: sharedMcpEnvironment(MACHINE_ENV, shared),
    send: (message) => sent.push(message),
    bufferedBytes: () => 0,
    log: () => undefined,
  });
  return sent;
}

describe("what a machine's MCP servers may read of its environment (atrium machine connect --mcp-env)", () => {
  it("shares the tool allowlist and the named variables only, never Atrium's own", () => {
    expect(sharedMcpEnvironment(MACHINE_ENV, ["NOTES_TOKEN"])).toEqual({ PATH: process.env.PATH, HOME: "/home/me", NOTES_TOKEN: "notes-token" });
    expect(() => sharedMcpEnvironment(MACHINE_ENV, ["ATRIUM_MACHINE_TOKEN"])).toThrow(/never handed to an MCP server/);
    expect(() => sharedMcpEnvironment(MACHINE_ENV, ["NOT A NAME"])).toThrow(/not an environment variable name/);
  });

  it("refuses a server whose config names a variable the machine did not share, and starts one that names a shared one", async () => {
    const sent = machineHost(["NOTES_TOKEN"]);
    host!.start("mcp-1", { ...PRINT_ENV, envFrom: { AWS: "AWS_SECRET_ACCESS_KEY" } });
    expect(sent).toEqual([expect.objectContaining({ type: "mcp_exit", relayId: "mcp-1", reason: expect.stringContaining("--mcp-env") })]);

    host!.start("mcp-2", { ...PRINT_ENV, env: { NOTES: "${NOTES_TOKEN}" } });
    const line = await pollUntil(() => sent.find((message) => message.type === "mcp_line"), { what: "the server's environment", timeoutMs: 20_000 });
    const printed = JSON.parse(line.type === "mcp_line" ? line.line : "{}") as Record<string, string>;
    expect(printed.NOTES).toBe("notes-token");
    expect(printed.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });
});
