import { describe, expect, it } from "vitest";
import { frameOf } from "@/lib/api/sse";

describe("frameOf", () => {
  it("answers each delivered event its own frame, whichever was framed last", () => {
    const first = { id: 7, event: { type: "item.delta", delta: "one" } };
    const second = { id: 8, event: { type: "item.delta", delta: "two" } };
    const firstFrame = 'id: 7\nevent: item.delta\ndata: {"type":"item.delta","delta":"one"}\n\n';
    expect(frameOf(first)).toBe(firstFrame);
    expect(frameOf(first)).toBe(firstFrame);
    expect(frameOf(second)).toBe('id: 8\nevent: item.delta\ndata: {"type":"item.delta","delta":"two"}\n\n');
    // A replay sends an older event again after newer ones were framed.
    expect(frameOf(first)).toBe(firstFrame);
  });
});
