import { describe, expect, it } from "vitest";
import { countMatches, findNeedle, matchRanges } from "@/lib/store/find-text";

describe("find text (what a match is for find in a conversation)", () => {
  it("counts every occurrence, not the texts holding one, ignoring case", () => {
    expect(countMatches("Quokka, quokka and QUOKKA", findNeedle("quokka"))).toBe(3);
    expect(countMatches("no such animal", findNeedle("quokka"))).toBe(0);
  });

  it("finds inside words, like a browser's find", () => {
    expect(countMatches("hello yellow", findNeedle("ello"))).toBe(2);
  });

  it("ignores accents and matches any white space with any white space", () => {
    expect(countMatches("Café au lait, cafe noir", findNeedle("CAFE"))).toBe(2);
    expect(countMatches("npm\n  test and npm test", findNeedle("  npm   test "))).toBe(2);
  });

  it("does not count overlapping matches twice", () => {
    expect(countMatches("aaaa", findNeedle("aa"))).toBe(2);
  });

  it("maps matches back to the original text, accents and spaces included", () => {
    const text = "Le café\n\nCAFÉ";
    expect(matchRanges(text, findNeedle("cafe")).map(([start, end]) => text.slice(start, end))).toEqual(["café", "CAFÉ"]);
    const spaced = "run npm \n test now";
    expect(matchRanges(spaced, findNeedle("npm test")).map(([start, end]) => spaced.slice(start, end))).toEqual(["npm \n test"]);
  });

  it("finds nothing for an empty query", () => {
    expect(findNeedle("   ")).toBe("");
    expect(countMatches("anything", "")).toBe(0);
    expect(matchRanges("anything", "")).toEqual([]);
  });
});
