import { describe, expect, it } from "vitest";
import { OutputPump } from "@/lib/machines/machine-output";
import { maximumKeptOutputCharacters } from "@/lib/tools/capped-output";

describe("a machine call's output on the link (backpressure)", () => {
  it("coalesces many small deltas into few frames, in order", () => {
    const frames: string[] = [];
    const pump = new OutputPump((delta) => frames.push(delta), () => 0);
    for (let index = 0; index < 10_000; index += 1) pump.push(`line ${index}\n`);
    pump.flush();
    expect(frames.join("")).toBe(Array.from({ length: 10_000 }, (_, index) => `line ${index}\n`).join(""));
    expect(frames.length).toBeLessThan(10);
  });

  it("streams at most what the shell keeps, however much the command writes", () => {
    let streamed = 0;
    const pump = new OutputPump((delta) => (streamed += delta.length), () => 0);
    const chunk = "a".repeat(1024 * 1024);
    for (let index = 0; index < 20; index += 1) pump.push(chunk);
    pump.flush();
    expect(streamed).toBe(maximumKeptOutputCharacters);
  });

  it("sends nothing live while the socket is backed up (the result still carries the output)", () => {
    const frames: string[] = [];
    let buffered = 64 * 1024 * 1024;
    const pump = new OutputPump((delta) => frames.push(delta), () => buffered);
    pump.push("x".repeat(100_000));
    pump.flush();
    expect(frames).toEqual([]);
    buffered = 0;
    pump.push("after");
    pump.flush();
    expect(frames).toEqual(["after"]);
  });

  it("lets the result carry only what follows the streamed text, and all of it once a delta was skipped or cut", () => {
    const whole = new OutputPump(() => undefined, () => 0);
    whole.push("first\n");
    whole.push("second\n");
    whole.flush();
    expect(whole.remainder("first\nsecond\nexit code 2")).toEqual({ output: "exit code 2", streamed: true });
    expect(whole.remainder("something else")).toEqual({ output: "something else", streamed: false });

    let buffered = 64 * 1024 * 1024;
    const skipped = new OutputPump(() => undefined, () => buffered);
    skipped.push("lost\n");
    skipped.flush();
    buffered = 0;
    skipped.push("kept\n");
    skipped.flush();
    expect(skipped.remainder("lost\nkept\n")).toEqual({ output: "lost\nkept\n", streamed: false });

    const cut = new OutputPump(() => undefined, () => 0);
    cut.push("a".repeat(maximumKeptOutputCharacters + 10));
    cut.flush();
    const capped = `${"a".repeat(10)}\n[… omitted …]\n`;
    expect(cut.remainder(capped)).toEqual({ output: capped, streamed: false });
  });
});
