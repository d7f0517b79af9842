import { describe, expect, it } from "vitest";
import { basisExplanation, basisLabel, compactionExplanation, contextFigures } from "@/components/context/context-figures";

const at = "2026-12-02T21:00:00.000Z";

describe("context ring explanations", () => {
  it("names the basis of the figure", () => {
    expect(basisExplanation({ source: "reported" })).toMatch(/provider's count/);
    expect(basisExplanation({ source: "estimate" })).toMatch(/^An estimate: no model call/);
    expect(basisExplanation({ source: "estimate", calibration: 0.5 })).toMatch(/^An estimate, calibrated against the provider's last count \(×0\.50\)/);
    expect(basisLabel({ source: "estimate", calibration: 0.5 })).toBe("calibrated estimate");
    expect(basisLabel({ source: "reported", calibration: 0.5 })).toBe("reported by the provider");
  });

  it("says a compaction that barely shrank kept the last 20 % of the window", () => {
    const text = compactionExplanation({ contextWindow: 70000, lastCompaction: { itemId: "i", at, tokensBefore: 14000, tokensAfter: 13900 } });
    expect(text).toMatch(/shrank little/);
    expect(text).toContain("14,000 tokens");
  });

  it("says how much a real compaction saved, and nothing without one", () => {
    const text = compactionExplanation({ contextWindow: 10000, lastCompaction: { itemId: "i", at, tokensBefore: 8000, tokensAfter: 3000 } });
    expect(text).toContain("5,000 tokens fewer");
    expect(compactionExplanation({ contextWindow: 10000, lastCompaction: null })).toBeNull();
  });

  it("puts the ring, the label and the popover on one basis: the window", () => {
    const figures = contextFigures({ contextWindow: 1000, threshold: 800, usedTokens: 250 } as Parameters<typeof contextFigures>[0]);
    expect(figures.percent).toBe(25);
    expect(figures.thresholdPercent).toBe(80);
  });
});
