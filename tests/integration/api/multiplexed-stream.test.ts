import { createParser } from "eventsource-parser";
import { afterEach, describe, expect, it } from "vitest";
import { openMultiplexedStream, updateSubscriptions } from "@/lib/api/multiplexed-stream";
import { MAX_BEHIND_BYTES, openStreamCount, sseStream } from "@/lib/api/sse";
import { streamFrameSchema, type StreamFrame } from "@/lib/api/stream-schemas";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

let harness: Harness;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const controller of aborts.splice(0)) controller.abort();
  await harness?.close();
});

/** Opens GET /api/stream in process and reads its frames as a browser would, each checked against the schema. */
function open(): { frames: StreamFrame[]; streamId: () => string } {
  const controller = new AbortController();
  aborts.push(controller);
  const response = openMultiplexedStream(new Request("http://atrium.test/api/stream", { signal: controller.signal }), harness.runtime);
  const frames: StreamFrame[] = [];
  const parser = createParser({ onEvent: (event) => frames.push(streamFrameSchema.parse(JSON.parse(event.data))) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return {
    frames,
    streamId: () => {
      const opened = frames.find((frame) => frame.type === "stream.opened");
      if (!opened || opened.type !== "stream.opened") throw new Error("the stream has not announced its id");
      return opened.streamId;
    },
  };
}

function conversationFrames(frames: StreamFrame[], key: string) {
  return frames.flatMap((frame) => (frame.type === "conversation" && frame.key === key ? [frame] : []));
}

describe("the browser's multiplexed stream", () => {
  it("carries list events and per-key snapshot-then-live; a key added with a last id resumes with no gap and no duplicate", async () => {
    harness = await startHarness();
    const stream = open();
    await waitUntil(() => stream.frames.some((frame) => frame.type === "stream.opened"), "the stream to announce its id");
    const created = await harness.runtime.createConversation({ text: "first" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    await waitUntil(() => stream.frames.some((frame) => frame.type === "list" && frame.event.type === "conversation.created"), "the list event of the new conversation");

    updateSubscriptions(harness.runtime, stream.streamId(), { add: [{ key: "a.1", conversationId: id }], remove: [] });
    await waitUntil(() => conversationFrames(stream.frames, "a.1").length > 0, "the snapshot of key a.1");
    expect(conversationFrames(stream.frames, "a.1")[0].event.type).toBe("snapshot");
    const sent = await harness.runtime.sendMessage(id, { text: "second [[stream:20]]", mode: "auto" });
    await harness.turnEnded(id, sent.turn!.id);
    await waitUntil(() => conversationFrames(stream.frames, "a.1").some((frame) => frame.event.type === "turn.ended"), "the end of the second turn on key a.1");
    const first = conversationFrames(stream.frames, "a.1");

    // A tab that saw up to the middle of the turn resumes from there on the same stream.
    const resumeAfter = first[Math.floor(first.length / 2)].id;
    updateSubscriptions(harness.runtime, stream.streamId(), { add: [{ key: "b.1", conversationId: id, lastEventId: resumeAfter }], remove: [] });
    const expected = first.filter((frame) => frame.id > resumeAfter).map((frame) => frame.id);
    await waitUntil(() => conversationFrames(stream.frames, "b.1").length >= expected.length, "the replay on key b.1");
    const resumed = conversationFrames(stream.frames, "b.1");
    expect(resumed.map((frame) => frame.event.type)).not.toContain("snapshot");
    expect(resumed.map((frame) => frame.id)).toEqual(expected);

    // Removing a key stops its frames at once; the other key keeps going.
    updateSubscriptions(harness.runtime, stream.streamId(), { add: [], remove: ["b.1"] });
    const third = await harness.runtime.sendMessage(id, { text: "third", mode: "auto" });
    await harness.turnEnded(id, third.turn!.id);
    await waitUntil(() => conversationFrames(stream.frames, "a.1").filter((frame) => frame.event.type === "turn.ended").length === 2, "the end of the third turn on key a.1");
    expect(conversationFrames(stream.frames, "b.1")).toHaveLength(resumed.length);
  });

  it("answers not_found for a stream that is not open, and a frame for a conversation that does not exist", async () => {
    harness = await startHarness();
    expect(() => updateSubscriptions(harness.runtime, "01JZZZZZZZZZZZZZZZZZZZZZZZ", { add: [], remove: [] })).toThrow(/not open/);
    const stream = open();
    await waitUntil(() => stream.frames.some((frame) => frame.type === "stream.opened"), "the stream to announce its id");
    updateSubscriptions(harness.runtime, stream.streamId(), { add: [{ key: "x", conversationId: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }], remove: [] });
    await waitUntil(() => stream.frames.some((frame) => frame.type === "subscription.failed"), "the subscription.failed frame");
    expect(stream.frames.find((frame) => frame.type === "subscription.failed")).toMatchObject({ key: "x", error: { code: "not_found" } });
  });

  it("cuts off a client more than 4 MiB behind, detaching its subscriber", async () => {
    const before = openStreamCount();
    let detached = false;
    // Nobody reads this response: everything written stays queued.
    sseStream(new Request("http://atrium.test/slow"), (writer) => {
      const chunk = `data: ${"x".repeat(256 * 1024)}\n\n`;
      for (let written = 0; written <= MAX_BEHIND_BYTES + chunk.length * 2; written += chunk.length) writer.write(chunk);
      return () => {
        detached = true;
      };
    });
    await waitUntil(() => detached, "the slow client's subscriber to be detached");
    expect(openStreamCount()).toBe(before);
  });
});
