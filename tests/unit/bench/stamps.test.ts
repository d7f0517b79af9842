import { describe, expect, it } from "vitest";
import { profileWindow } from "../../../bench/model/profile-window";
import { breakdown } from "../../../bench/peers/breakdown";
import type { PeerFigures, WordSample } from "../../../bench/peers/peer-round";
import { benchPrompt, parseBenchPrompt, parseStamps, stampWord, StampReader } from "../../../bench/model/stamps";
import type { CpuProfile } from "../../../bench/support/cpu-profile";

describe("model-stream word stamps", () => {
  it("round-trips a stamped word", () => {
    expect(parseStamps(`${stampWord("r0-con3", 17, 123456789)} `)).toEqual([{ tag: "r0-con3", index: 17, sentMicros: 123456789 }]);
  });

  it("times each word at the delta that completes it, however the text is cut", () => {
    const reader = new StampReader();
    // Two words merged in one delta, then a word split across two deltas.
    reader.push(`${stampWord("a", 0, 1000)} ${stampWord("a", 1, 1500)} `, 2000);
    reader.push("a:2@19", 3000);
    expect(reader.words).toBe(2);
    reader.push("00 ", 4000);
    expect(reader.latencies.get("a")).toEqual([1, 0.5, 2.1]);
    expect(reader.words).toBe(3);
  });

  it("keeps each timed word's index and send time, for the per-word breakdown", () => {
    const reader = new StampReader();
    reader.push(`${stampWord("a", 0, 1000)} ${stampWord("a", 1, 1500)} a:2@19`, 2000);
    reader.push("00 ", 4000);
    expect(reader.samples).toEqual([
      { index: 0, sentMicros: 1000, ms: 1 },
      { index: 1, sentMicros: 1500, ms: 0.5 },
      { index: 2, sentMicros: 1900, ms: 2.1 },
    ]);
  });

  it("counts a last word without a trailing space when the stream finishes", () => {
    const reader = new StampReader();
    reader.push(stampWord("b", 0, 0), 500);
    expect(reader.words).toBe(0);
    reader.finish(1000);
    expect(reader.latencies.get("b")).toEqual([1]);
  });

  it("keeps tags apart and ignores text that is not a stamp", () => {
    const reader = new StampReader();
    reader.push(`hello ${stampWord("x", 0, 0)} world ${stampWord("y", 0, 1000)} `, 3000);
    expect(Object.fromEntries(reader.latencies)).toEqual({ x: [3], y: [2] });
  });

  it("reads the bench prompt with and without its counts", () => {
    expect(parseBenchPrompt(`please ${benchPrompt("r1-seq2", 20, 0)} now`)).toEqual({ tag: "r1-seq2", words: 20, delayMs: 0 });
    expect(parseBenchPrompt("[bench t]")).toEqual({ tag: "t", words: 200, delayMs: 5 });
    expect(parseBenchPrompt("no tag here")).toBeNull();
  });
});

describe("profileWindow", () => {
  const profile: CpuProfile = {
    nodes: [{ id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: 0, columnNumber: 0 } }],
    samples: [1, 1, 1, 1, 1],
    timeDeltas: [10, 10, 10, 10, 10],
    startTime: 1000,
    endTime: 1050,
  };

  it("keeps the samples inside the window, each weighing the time since the previous kept one", () => {
    const windowed = profileWindow(profile, 1015, 1040)!;
    expect(windowed.samples).toHaveLength(3); // stamped 1020, 1030, 1040
    expect(windowed.timeDeltas).toEqual([5, 10, 10]);
    expect(windowed.startTime).toBe(1015);
  });

  it("answers null when no sample falls in the window", () => {
    expect(profileWindow(profile, 5000, 6000)).toBeNull();
  });
});

describe("the peers breakdown of turns one at a time", () => {
  it("separates word 0 from the rest, names the slowest words and the GCs that overlap them", () => {
    const samples: WordSample[] = [];
    for (let index = 0; index < 100; index += 1) samples.push({ turn: 0, index, sentMicros: 10_000 * index, ms: index === 0 ? 2.5 : index === 50 ? 3 : 0.3 });
    const text = breakdown("Atrium", [{ sequentialSamples: samples } as PeerFigures], [{ role: "server", startMicros: 500_500, ms: 1.2, kind: "scavenge" }]);
    expect(text).toContain("word 0                 n=   1  p50 2.50");
    expect(text).toContain("all but word 0         n=  99  p50 0.30");
    const slowest = text.split("\n").filter((line) => /^ {4}r1 /.test(line));
    expect(slowest[0]).toMatch(/^ {4}r1 t1 w50 +3\.00 +server scavenge 1\.20ms@\+0\.50$/);
    expect(slowest[1]).toMatch(/^ {4}r1 t1 w0 +2\.50 *$/);
  });
});
