import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { FILESYSTEM_SERVER } from "../../support/mcp-servers";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness | null = null;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("MCP: server-filesystem on a temp directory", () => {
  it("asks before write_file, writes after approval, and reads the file back", async () => {
    const notes = makeTempHome("atrium-notes-");
    cleanups.push(notes.cleanup);
    // The server reports the real path of its root (macOS /private, symlinked tmp), so the test uses it too.
    const root = fs.realpathSync(notes.home);
    harness = await startHarness({ mcpServers: { files: { command: process.execPath, args: [FILESYSTEM_SERVER, root], sandbox: { writable: [root] } } } });
    expect(harness.runtime.extensions.servers()[0]).toMatchObject({ name: "files", status: "connected" });
    const target = path.join(root, "todo.md");
    const created = await harness.runtime.createConversation({
      text: `[[tool:mcp__files__write_file {"path":${JSON.stringify(target)},"content":"buy quinces"}]] [[tool:mcp__files__read_text_file {"path":${JSON.stringify(target)}}]]`,
    });
    const id = created.conversation.id;
    const first = await harness.waitForEvent(id, "approval.requested");
    expect(first.approval).toMatchObject({ toolName: "mcp__files__write_file", input: { path: target, content: "buy quinces" } });
    expect(fs.existsSync(target)).toBe(false);
    await harness.runtime.decideApproval(first.approval.id, "approve");
    const second = await harness.waitForEvent(id, "approval.requested", (event) => event.approval.id !== first.approval.id);
    expect(second.approval.toolName).toBe("mcp__files__read_text_file");
    expect(fs.readFileSync(target, "utf8")).toBe("buy quinces");
    await harness.runtime.decideApproval(second.approval.id, "approve");
    const turn = await harness.turnEnded(id, created.turn.id);
    expect(turn.status).toBe("completed");
    const calls = harness.items(id).filter((item) => item.kind === "tool_call");
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(calls[1].output).toBe("buy quinces");
    const reply = harness.items(id).filter((item) => item.kind === "assistant_message").at(-1);
    expect(reply?.text).toContain("Tool mcp__files__read_text_file returned: buy quinces");
  });

  it("a denied call never reaches the server, and a path outside its root fails with the server's message", async () => {
    const notes = makeTempHome("atrium-notes-");
    cleanups.push(notes.cleanup);
    const root = fs.realpathSync(notes.home);
    harness = await startHarness({
      mcpServers: { files: { command: process.execPath, args: [FILESYSTEM_SERVER, root], sandbox: { writable: [root] }, tools: { read_text_file: "auto" } } },
    });
    const target = path.join(root, "denied.md");
    const created = await harness.runtime.createConversation({
      text: `[[tool:mcp__files__write_file {"path":${JSON.stringify(target)},"content":"no"}]] [[tool:mcp__files__read_text_file {"path":"/etc/hostname"}]]`,
    });
    const id = created.conversation.id;
    const requested = await harness.waitForEvent(id, "approval.requested");
    await harness.runtime.decideApproval(requested.approval.id, "deny");
    await harness.turnEnded(id, created.turn.id);
    const [write, read] = harness.items(id).filter((item) => item.kind === "tool_call");
    expect(write.status).toBe("denied");
    expect(fs.existsSync(target)).toBe(false);
    expect(read.status).toBe("failed");
    expect(read.output).toMatch(/outside allowed directories|Access denied/i);
  });
});
