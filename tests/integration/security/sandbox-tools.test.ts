import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Item } from "@/lib/events/entities";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

/**
 * The agent's tools run confined (DESIGN §5), through the real Runtime and real bwrap:
 * each test runs the same call sandboxed (the default) and with `sandbox.mode: "off"`, so
 * it shows both what the sandbox takes away and that the command itself works.
 */
let harness: Harness;
let outside: string;
let listener: net.Server | undefined;
afterEach(async () => {
  await harness?.close();
  fs.rmSync(outside, { recursive: true, force: true });
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  listener = undefined;
});
beforeAll(() => {
  expect(fs.existsSync("/usr/bin/bwrap") || process.env.PATH?.split(":").some((dir) => fs.existsSync(path.join(dir, "bwrap")))).toBe(true);
});

type Mode = "workspace-write" | "off";

async function start(mode: Mode): Promise<void> {
  outside = fs.mkdtempSync(path.join(os.homedir(), ".atrium-sandbox-outside-"));
  harness = await startHarness({ approvals: { shell: "auto", write_file: "auto" }, sandbox: { mode } });
  fs.writeFileSync(path.join(harness.home, "secret.txt"), "s3cret-in-home\n", { mode: 0o600 });
}

async function runTool(name: string, input: Record<string, unknown>): Promise<Item> {
  const created = await harness.runtime.createConversation({ text: `[[tool:${name} ${JSON.stringify(input)}]]` });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  const call = harness.items(created.conversation.id).find((item) => item.kind === "tool_call");
  expect(call).toBeDefined();
  return call!;
}

const shell = (command: string) => runTool("shell", { command });

describe.each<Mode>(["workspace-write", "off"])("sandbox.mode %s", (mode) => {
  const sandboxed = mode !== "off";

  it(`a shell call records how it ran (${sandboxed ? "bwrap" : "off"}), kept by the index and shown by the timeline`, async () => {
    await start(mode);
    const created = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo hi" })}]]` });
    const conversationId = created.conversation.id;
    await harness.turnEnded(conversationId, created.turn.id);
    const backend = sandboxed ? "bwrap" : "off";
    expect(harness.items(conversationId).find((item) => item.kind === "tool_call")).toMatchObject({ status: "completed", sandbox: backend });
    await harness.restart();
    const reread = harness.runtime.listItems(conversationId, {}).items.find((item) => item.kind === "tool_call");
    expect(reread?.sandbox).toBe(backend);
    expect(harness.runtime.timeline(created.turn.id).find((entry) => entry.kind === "tool_call")).toMatchObject({ name: "shell", sandbox: backend });
  });

  it(sandboxed ? "a shell command cannot see $ATRIUM_HOME" : "a shell command reads $ATRIUM_HOME as before", async () => {
    await start(mode);
    const call = await shell(`cat ${path.join(harness.home, "secret.txt")}`);
    if (sandboxed) {
      expect(call.status).toBe("failed");
      expect(call.output).toContain("No such file or directory");
      expect(call.output).not.toContain("s3cret-in-home");
    } else {
      expect(call).toMatchObject({ status: "completed", output: "s3cret-in-home\n" });
    }
  });

  it(sandboxed ? "a shell command cannot see the server's /proc entry" : "the server's /proc entry is visible as before", async () => {
    await start(mode);
    // The server's own process: its environ holds whatever the server was started with (ATRIUM_TOKEN among them).
    const call = await shell(`tr '\\0' ' ' < /proc/${process.pid}/cmdline && test -r /proc/${process.pid}/environ`);
    if (sandboxed) {
      expect(call.status).toBe("failed");
      expect(call.output).toContain("No such file or directory");
    } else {
      expect(call.status).toBe("completed");
      expect(call.output).toContain("node");
    }
  });

  it(sandboxed ? "a shell command has no network" : "a shell command reaches the network as before", async () => {
    await start(mode);
    listener = net.createServer((socket) => socket.end("hello-from-listener\n"));
    await new Promise<void>((resolve) => listener!.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const call = await shell(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`);
    if (sandboxed) {
      expect(call.status).toBe("failed");
      expect(call.output).not.toContain("hello-from-listener");
    } else {
      expect(call).toMatchObject({ status: "completed", output: "hello-from-listener\n" });
    }
  });

  it(sandboxed ? "a shell command writes its cwd and nothing else" : "a shell command writes outside its cwd as before", async () => {
    await start(mode);
    const target = path.join(outside, "escaped.txt");
    const call = await shell(`echo inside > made-here.txt && echo outside > ${target}`);
    expect(fs.readFileSync(path.join(harness.cwd, "made-here.txt"), "utf8")).toBe("inside\n");
    if (sandboxed) {
      expect(call.status).toBe("failed");
      expect(call.output).toContain("Read-only file system");
      expect(fs.existsSync(target)).toBe(false);
    } else {
      expect(call.status).toBe("completed");
      expect(fs.readFileSync(target, "utf8")).toBe("outside\n");
    }
  });

  it("read_file refuses a file in $ATRIUM_HOME whatever the mode", async () => {
    await start(mode);
    const call = await runTool("read_file", { path: path.join(harness.home, "secret.txt") });
    expect(call.status).toBe("failed");
    expect(call.output).toContain("inside Atrium's data directory");
    expect(call.output).not.toContain("s3cret-in-home");
  });

  it(sandboxed ? "write_file does not follow a symlinked folder out of the cwd" : "write_file follows a symlinked folder as before", async () => {
    await start(mode);
    fs.symlinkSync(outside, path.join(harness.cwd, "linked"));
    const call = await runTool("write_file", { path: "linked/planted.txt", content: "through the link\n" });
    if (sandboxed) {
      expect(call.status).toBe("failed");
      expect(call.output).toContain("outside the working directory");
      expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
    } else {
      expect(call.status).toBe("completed");
      expect(fs.readFileSync(path.join(outside, "planted.txt"), "utf8")).toBe("through the link\n");
    }
  });
});

/** Host pids whose command line contains `marker` (the sandbox's pids are namespaced, the host's are not). */
function hostProcessesWith(marker: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("interrupt under the sandbox", () => {
  it("kills the sandboxed command and every process it started", async () => {
    await start("workspace-write");
    const marker = `${process.pid}${Date.now() % 100000}`;
    const command = `sleep 300.${marker} & sleep 301.${marker} & echo started; wait`;
    const created = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command })}]]` });
    const conversationId = created.conversation.id;
    await waitUntil(() => harness.items(conversationId).some((item) => item.kind === "tool_call" && item.output?.includes("started")), "the command to start");
    const sleeps = () => hostProcessesWith(marker).filter((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0"));
    await waitUntil(() => sleeps().length === 2, "both sleeps to run (seen from the host)");
    // bwrap, bash and both sleeps: everything the call started carries the marker in its command line.
    expect(hostProcessesWith(marker).length).toBeGreaterThanOrEqual(3);
    await harness.runtime.interrupt(conversationId);
    expect((await harness.turnEnded(conversationId, created.turn.id)).status).toBe("interrupted");
    await waitUntil(() => hostProcessesWith(marker).length === 0, "every sandboxed process to be gone", 5_000);
  });
});
