import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";

let harness: Harness;
let fake: FakeOpenAIServer | null = null;
afterEach(async () => {
  await harness?.close();
  await fake?.close();
  fake = null;
});

const SMALL = { models: [{ id: "small", provider: "offline", contextWindow: 6000, maxOutputTokens: 500 }], defaultModel: "small" };

async function send(conversationId: string, text: string) {
  const outcome = await harness.runtime.sendMessage(conversationId, { text, mode: "auto" });
  const turn = await harness.turnEnded(conversationId, outcome.turn!.id);
  return turn;
}

describe("automatic compaction", () => {
  it("compacts at the threshold, keeps summaries cumulative, and re-adds AGENTS.md", async () => {
    harness = await startHarness(SMALL);
    fs.writeFileSync(path.join(harness.cwd, "AGENTS.md"), "Project rule: always answer kindly.\n");
    const created = await harness.runtime.createConversation({ text: "first message about apples [[stream:400]]" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const threshold = harness.runtime.getContext(id).threshold;
    expect(threshold).toBe(4800);

    const summaries = () => harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.kind === "compaction_summary");
    let round = 0;
    while (summaries().length < 2 && round < 40) {
      round += 1;
      const before = harness.runtime.getContext(id);
      const countBefore = summaries().length;
      const turn = await send(id, `message ${round} about pears [[stream:400]]`);
      expect(turn.status).toBe("completed");
      // Compaction happens only when the next request (the usage so far plus the new message) reaches the threshold.
      const newMessageTokens = 20;
      if (summaries().length > countBefore) expect(before.usedTokens + newMessageTokens).toBeGreaterThanOrEqual(threshold);
      else expect(before.usedTokens).toBeLessThan(threshold);
    }
    const [first, second] = summaries();
    expect(first.text).toContain("first message about apples");
    // Cumulative: the second summary still names the first message, through the first summary.
    expect(second.text).toContain("first message about apples");

    const context = harness.runtime.getContext(id);
    expect(context.lastCompaction?.itemId).toBe(second.id);
    expect(context.lastCompaction!.tokensAfter).toBeLessThan(context.lastCompaction!.tokensBefore);
    expect(context.usedTokens).toBeLessThan(threshold);

    // Everything stays on disk and visible.
    const all = harness.runtime.listItems(id, { limit: 500 }).items;
    expect(all.filter((item) => item.kind === "user_message")).toHaveLength(round + 1);
  });

  it("sends AGENTS.md and the summary to the model after compaction", async () => {
    fake = await startFakeOpenAIServer();
    harness = await startHarness({
      models: [{ id: "fake", provider: "openai-compatible", baseURL: fake.url, model: "fake-model", contextWindow: 4000, maxOutputTokens: 300 }],
      defaultModel: "fake",
    });
    fs.writeFileSync(path.join(harness.cwd, "AGENTS.md"), "Project rule: always answer kindly.\n");
    fake.enqueue(
      { type: "text", text: "ok fine", usage: { promptTokens: 1500, completionTokens: 3 } },
      { type: "text", text: "ok again", usage: { promptTokens: 3100, completionTokens: 3 } },
    );
    const created = await harness.runtime.createConversation({ text: `hello ${"apple ".repeat(500)}` });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    await send(id, `more ${"pear ".repeat(600)}`);
    // The reported 3100 input tokens plus the new message put the request past the threshold (3200): compaction first.
    fake.enqueue({ type: "text", text: "Summary: the owner said hello" }, { type: "text", text: "after compaction", usage: { promptTokens: 1800, completionTokens: 2 } });
    const turn = await send(id, `third message ${"plum ".repeat(100)}`);
    expect(turn.status).toBe("completed");
    const requests = fake.requests.filter((request) => request.path.endsWith("/chat/completions"));
    const compactionRequest = requests.at(-2)!.body;
    expect(JSON.stringify(compactionRequest.messages.at(-1))).toContain("You are compacting a conversation.");
    const after = requests.at(-1)!.body;
    const system = after.messages.find((message: { role: string }) => message.role === "system");
    expect(system.content).toContain("Project rule: always answer kindly.");
    expect(JSON.stringify(after.messages)).toContain("Summary: the owner said hello");
    const summary = harness.runtime.listItems(id, {}).items.find((item) => item.kind === "compaction_summary");
    expect(summary?.text).toBe("Summary: the owner said hello");
    expect(harness.runtime.getContext(id).source).toBe("reported");
  });

  it("fails the turn when compaction fails", async () => {
    fake = await startFakeOpenAIServer();
    harness = await startHarness({
      models: [{ id: "fake", provider: "openai-compatible", baseURL: fake.url, model: "fake-model", contextWindow: 4000, maxOutputTokens: 300 }],
      defaultModel: "fake",
    });
    fake.enqueue(
      { type: "text", text: "ok", usage: { promptTokens: 1500, completionTokens: 1 } },
      { type: "text", text: "ok", usage: { promptTokens: 3150, completionTokens: 1 } },
    );
    const created = await harness.runtime.createConversation({ text: `hello ${"apple ".repeat(500)}` });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    await send(created.conversation.id, `more ${"pear ".repeat(600)}`);
    fake.enqueue({ type: "error", status: 400, message: "bad summary request" });
    const turn = await send(created.conversation.id, `again ${"plum ".repeat(100)}`);
    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("compaction_failed");
    expect(turn.error?.message).toContain("bad summary request");
  });

  it("fails with context_overflow and the sizes when the input cannot fit", async () => {
    harness = await startHarness(SMALL);
    const created = await harness.runtime.createConversation({ text: "x ".repeat(20000) });
    const turn = await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("context_overflow");
    expect(turn.error?.message).toMatch(/\d+ tokens/);
    // Nothing was dropped: the message is still in the history.
    expect(harness.runtime.listItems(created.conversation.id, {}).items[0].text).toContain("x x x");
  });
});

describe("manual compaction", () => {
  it("is refused while a turn runs and works when idle", async () => {
    harness = await startHarness(SMALL);
    const created = await harness.runtime.createConversation({ text: "slow [[delay:30]] [[stream:60]]" });
    const id = created.conversation.id;
    await expect(harness.runtime.compact(id)).rejects.toMatchObject({ code: "not_idle" });
    await harness.turnEnded(id, created.turn.id);
    const nothing = await harness.runtime.compact(id);
    expect(nothing.compacted).toBe(false);
    for (let index = 0; index < 4; index += 1) await send(id, `more ${index} [[stream:400]]`);
    const done = await harness.runtime.compact(id);
    expect(done.compacted).toBe(true);
    const summary = harness.runtime.listItems(id, { limit: 500 }).items.find((item) => item.kind === "compaction_summary");
    expect(summary?.text).toMatch(/^Summary: slow/);
  });
});
