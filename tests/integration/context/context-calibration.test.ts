import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => {
  await harness?.close();
});

// The offline model reports its input as a quarter of the prompt's characters, without the tool
// catalog Atrium's estimate counts: a real gap between the two bases, as with a provider.
const CONFIG = { models: [{ id: "offline", provider: "offline", contextWindow: 20000, maxOutputTokens: 1000 }], defaultModel: "offline" };

async function send(id: string, text: string): Promise<void> {
  const outcome = await harness.runtime.sendMessage(id, { text, mode: "auto" });
  await harness.turnEnded(id, outcome.turn!.id);
}

/** Identical content: the same figure within a few tokens (message framing is counted per conversion). */
function expectSameFigure(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.max(3, expected * 0.005));
}

describe("the context figure keeps one basis (DESIGN §4, issue 26)", () => {
  it("a fork, a reload and a restart show the figure of the same content on the provider's scale", async () => {
    harness = await startHarness(CONFIG);
    const created = await harness.runtime.createConversation({ text: "first question about apples [[stream:300]]" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    await send(id, "second question about pears [[stream:300]]");
    const original = harness.runtime.getContext(id);
    expect(original.source).toBe("reported");
    expect(original.calibration).toBeGreaterThan(0);
    // The gap the calibration closes: a raw estimate differs from the provider's count by far more than rounding.
    expect(Math.abs(original.calibration! - 1)).toBeGreaterThan(0.05);

    const fork = await harness.runtime.fork(id, {});
    const forked = harness.runtime.getContext(fork.id);
    expect(forked.source).toBe("estimate");
    expect(forked.calibration).toBeCloseTo(original.calibration!, 10);
    expectSameFigure(forked.usedTokens, original.usedTokens);

    // Idle after a reload of the server: no report in memory, the recorded calibration instead.
    await harness.restart();
    const reloaded = harness.runtime.getContext(id);
    expect(reloaded.source).toBe("estimate");
    expectSameFigure(reloaded.usedTokens, original.usedTokens);

    // A restart from the second question, then the same question again: the same content as the original.
    const second = harness.runtime.listItems(id, { limit: 100 }).items.filter((item) => item.kind === "user_message")[1];
    const restart = await harness.runtime.rewind(id, second.id);
    const restarted = harness.runtime.getContext(restart.conversation.id);
    expect(restarted.calibration).toBeCloseTo(original.calibration!, 10);
    expect(restarted.usedTokens).toBeLessThan(original.usedTokens);
    await send(restart.conversation.id, restart.draft);
    expectSameFigure(harness.runtime.getContext(restart.conversation.id).usedTokens, original.usedTokens);
  });

  it("a compaction keeps the calibration, so the figure after it compares with the one before", async () => {
    harness = await startHarness(CONFIG);
    const created = await harness.runtime.createConversation({ text: "one [[stream:1500]]" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    for (const text of ["two [[stream:1500]]", "three [[stream:1500]]", "four [[stream:200]]"]) await send(id, text);
    const before = harness.runtime.getContext(id);
    const outcome = await harness.runtime.compact(id);
    expect(outcome.compacted).toBe(true);
    const after = harness.runtime.getContext(id);
    expect(after.source).toBe("estimate");
    expect(after.calibration).toBeCloseTo(before.calibration!, 10);
    expect(after.usedTokens).toBeLessThan(before.usedTokens);
  });
});
