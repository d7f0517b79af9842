import { describe, expect, it } from "vitest";
import { frameOf, sseStream, type SseWriter } from "@/lib/api/sse";

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

describe("sseStream's writes", () => {
  const decoder = new TextDecoder();
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it("sends a loop turn's first frame at once and gathers the frames after it into one chunk at the turn's end", async () => {
    let writer: SseWriter | null = null;
    const abort = new AbortController();
    const response = sseStream(new Request("http://localhost/api/events", { headers: { authorization: "Bearer sse-frames-test" }, signal: abort.signal }), (given) => {
      writer = given;
      return () => {};
    });
    const reader = response.body!.getReader();
    const read = async () => decoder.decode((await reader.read()).value);
    expect(await read()).toBe(": connected\n\n");
    await nextTurn();

    writer!.write("a\n\n");
    writer!.write("b\n\n");
    writer!.write("c\n\n");
    // Before the loop turns: the first frame is readable, the two after it are not yet.
    const first = reader.read();
    const raced = await Promise.race([first.then(() => "read"), Promise.resolve().then(() => Promise.resolve()).then(() => "not yet")]);
    expect(raced).toBe("read");
    expect(decoder.decode((await first).value)).toBe("a\n\n");
    expect(await read()).toBe("b\n\nc\n\n");

    // A frame in a later turn is again sent at once, alone.
    await nextTurn();
    writer!.write("d\n\n");
    expect(await read()).toBe("d\n\n");
    abort.abort();
    await reader.cancel();
  });
});
