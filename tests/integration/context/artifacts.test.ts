import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exportConversation, importConversations } from "@/lib/store/export-import";
import { Store } from "@/lib/store/store";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness;
afterEach(async () => harness?.close());

describe("artifacts", () => {
  it("stores a 1 MB tool output once, keeps the JSONL small, pages it back exactly, and travels with export", async () => {
    harness = await startHarness({ approvals: { shell: "auto" } });
    const big = path.join(harness.cwd, "big.txt");
    const lines = Array.from({ length: 20000 }, (_, index) => `line ${index} ${"abcdefghij".repeat(4)}`);
    fs.writeFileSync(big, `${lines.join("\n")}\n`);
    const expected = fs.readFileSync(big, "utf8");
    expect(expected.length).toBeGreaterThan(1_000_000);
    const created = await harness.runtime.createConversation({ text: `[[tool:shell {"command":"cat ${big}"}]]` });
    const id = created.conversation.id;
    const turn = await harness.turnEnded(id, created.turn.id, 30_000);
    expect(turn.status).toBe("completed");
    const call = harness.runtime.listItems(id, {}).items.find((item) => item.kind === "tool_call")!;
    expect(call.artifactId).toBeDefined();
    expect(call.output!.length).toBeLessThan(8000);
    expect(call.output).toContain(call.artifactId!);

    const conversationDirectory = path.join(harness.home, "conversations", id);
    const jsonlBytes = fs
      .readdirSync(conversationDirectory)
      .filter((name) => name.endsWith(".jsonl"))
      .reduce((sum, name) => sum + fs.statSync(path.join(conversationDirectory, name)).size, 0);
    expect(jsonlBytes).toBeLessThan(100_000);
    expect(fs.readdirSync(path.join(conversationDirectory, "artifacts"))).toEqual([call.artifactId]);

    const first = await harness.runtime.readArtifact(id, call.artifactId!, 1);
    let text = "";
    for (let page = 1; page <= first.artifact.pages; page += 1) {
      const read = await harness.runtime.readArtifact(id, call.artifactId!, page);
      expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(64 * 1024);
      if (page < first.artifact.pages) expect(read.text.endsWith("\n")).toBe(true);
      text += read.text;
    }
    expect(text).toBe(expected);
    expect(first.artifact.bytes).toBe(Buffer.byteLength(expected));

    const target = makeTempHome();
    try {
      const file = path.join(target.home, "out.tar.gz");
      await exportConversation(harness.home, id, { output: file });
      const store = new Store(target.home, { log: () => {} });
      await importConversations(store, file, {});
      await store.close();
      expect(fs.readFileSync(path.join(target.home, "conversations", id, "artifacts", call.artifactId!), "utf8")).toBe(expected);
    } finally {
      target.cleanup();
    }
  });

  it("lets the model read an artifact page with read_artifact", async () => {
    harness = await startHarness({ approvals: { shell: "auto" }, artifactBytes: 1024 });
    const created = await harness.runtime.createConversation({ text: `[[tool:shell {"command":"seq 1 2000"}]]` });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const artifactId = harness.runtime.listItems(id, {}).items.find((item) => item.kind === "tool_call")!.artifactId!;
    const outcome = await harness.runtime.sendMessage(id, { text: `[[tool:read_artifact {"id":"${artifactId}","page":1}]]`, mode: "auto" });
    await harness.turnEnded(id, outcome.turn!.id);
    const items = harness.runtime.listItems(id, {}).items;
    const read = items.filter((item) => item.kind === "tool_call").at(-1)!;
    expect(read.status).toBe("completed");
    expect(read.output).toContain(`[artifact ${artifactId}, page 1 of 1`);
    expect(read.output).toContain("\n1999\n2000\n");
    expect(items.at(-1)!.text).toBe(`Tool read_artifact returned: [artifact ${artifactId}, page 1 of 1, 8893 bytes in all]`);
  });
});

describe("forks after compaction", () => {
  it("copy the latest summary and what follows", async () => {
    harness = await startHarness({ models: [{ id: "small", provider: "offline", contextWindow: 6000, maxOutputTokens: 500 }], defaultModel: "small" });
    const created = await harness.runtime.createConversation({ text: "start [[stream:400]]" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    for (let index = 0; index < 4; index += 1) {
      const outcome = await harness.runtime.sendMessage(id, { text: `more ${index} [[stream:400]]`, mode: "auto" });
      await harness.turnEnded(id, outcome.turn!.id);
    }
    expect((await harness.runtime.compact(id)).compacted).toBe(true);
    const fork = await harness.runtime.fork(id, {});
    const forkItems = harness.runtime.listItems(fork.id, {}).items;
    expect(forkItems[0].kind).toBe("compaction_summary");
    expect(forkItems.some((item) => item.text?.startsWith("start"))).toBe(false);
    expect(fork.forkedFrom?.conversationId).toBe(id);
    // The fork's model context starts from the copied summary too.
    const context = harness.runtime.getContext(fork.id);
    expect(context.lastCompaction?.itemId).toBe(forkItems[0].id);
    const outcome = await harness.runtime.sendMessage(fork.id, { text: "in the fork", mode: "auto" });
    expect((await harness.turnEnded(fork.id, outcome.turn!.id)).status).toBe("completed");
  });
});
