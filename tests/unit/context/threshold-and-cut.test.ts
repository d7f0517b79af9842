import { describe, expect, it } from "vitest";
import { chooseCut, startsStep } from "@/lib/context/cut";
import { compactionThreshold, minimumTailTokens } from "@/lib/context/threshold";
import type { Item } from "@/lib/events/entities";

describe("compaction threshold", () => {
  it("is min(0.8 × window, window − max output), rounded down", () => {
    expect(compactionThreshold(32000, 4000)).toBe(25600);
    expect(compactionThreshold(10000, 4000)).toBe(6000);
    expect(compactionThreshold(1001, 100)).toBe(800);
    expect(compactionThreshold(128000, 0)).toBe(102400);
  });

  it("keeps at least 20 % of the window", () => {
    expect(minimumTailTokens(32000)).toBe(6400);
    expect(minimumTailTokens(1001)).toBe(201);
  });
});

/** A random history of user messages, assistant replies, reasoning and tool-call runs. */
function generateHistory(seed: number, length: number): Item[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const items: Item[] = [];
  let previous: Item["kind"] = "assistant_message";
  for (let index = 0; index < length; index += 1) {
    const roll = random();
    let kind: Item["kind"];
    if (previous === "assistant_message" || previous === "notice") kind = roll < 0.8 ? "user_message" : "notice";
    else if (previous === "user_message") kind = roll < 0.3 ? "reasoning" : roll < 0.6 ? "tool_call" : "assistant_message";
    else if (previous === "reasoning") kind = roll < 0.5 ? "tool_call" : "assistant_message";
    else kind = roll < 0.5 ? "tool_call" : "assistant_message";
    items.push({
      id: String(index).padStart(26, "0"),
      seq: index + 1,
      sessionId: "S".padStart(26, "0"),
      turnId: null,
      kind,
      status: "completed",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    previous = kind;
  }
  return items;
}

describe("cut selection on generated histories", () => {
  for (let seed = 1; seed <= 40; seed += 1) {
    it(`seed ${seed}: tail is at least the minimum, starts a whole step, never splits a tool run`, () => {
      const items = generateHistory(seed, 30 + (seed % 50));
      const sizes = items.map((_, index) => 10 + ((index * 7919 + seed) % 90));
      const total = sizes.reduce((sum, size) => sum + size, 0);
      const minimum = Math.floor(total * 0.2);
      const cut = chooseCut(items, sizes, minimum);
      if (cut === null) {
        // Only when no boundary leaves a big enough tail with something before it.
        return expect(items.slice(1).every((item, index) => !startsStep(item, items[index]) || sizes.slice(index + 1).reduce((a, b) => a + b, 0) < minimum)).toBe(true);
      }
      expect(cut).toBeGreaterThan(0);
      expect(sizes.slice(cut).reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(minimum);
      const first = items[cut];
      expect(first.kind).not.toBe("tool_call");
      expect(first.kind).not.toBe("reasoning");
      if (first.kind === "assistant_message") expect(items[cut - 1].kind).not.toBe("reasoning");
      // The latest such boundary: any later step boundary would leave too small a tail.
      for (let later = cut + 1; later < items.length; later += 1) {
        if (startsStep(items[later], items[later - 1])) expect(sizes.slice(later).reduce((a, b) => a + b, 0)).toBeLessThan(minimum);
      }
    });
  }
});
