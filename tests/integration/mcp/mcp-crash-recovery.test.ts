import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { everythingStdio } from "../../support/mcp-servers";
import { makeTempHome } from "../../support/temp-home";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("MCP calls and crash recovery", () => {
  it("a started MCP call is marked unknown after a crash, like a shell call", async () => {
    const config = { mcpServers: { everything: { ...everythingStdio(), approval: "auto" } } };
    const running = await startHarness(config);
    cleanups.push(() => running.close());
    const created = await running.runtime.createConversation({
      text: '[[tool:mcp__everything__trigger-long-running-operation {"duration":60,"steps":60}]]',
    });
    const id = created.conversation.id;
    await running.waitForEvent(id, "item.delta", (event) => event.field === "output" && event.delta === "progress 1/60\n", 10_000);
    // The files as a killed process leaves them: every record appended so far is on disk (group-commit fdatasync
    // happens before publish). The index is left out, so the copy rebuilds it from the JSONL.
    const crashed = makeTempHome("atrium-crashed-");
    fs.cpSync(running.home, crashed.home, { recursive: true, filter: (source) => !path.basename(source).startsWith("metadata.db") });
    cleanups.push(crashed.cleanup);
    const recovered: Harness = await startHarness(config, crashed.home);
    cleanups.push(() => recovered.close());
    const call = recovered.items(id).find((item) => item.kind === "tool_call")!;
    expect(call.toolName).toBe("mcp__everything__trigger-long-running-operation");
    expect(call.status).toBe("unknown");
    expect(recovered.runtime.getTurn(created.turn.id).status).not.toBe("running");
  });
});
