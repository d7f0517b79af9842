import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { createOfflineModel } from "@/lib/models/offline-model";

/** Lets queued promise jobs run, so the model is parked in its delay (not before it) when the abort lands. */
function settlePendingWork(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("offline model delay", () => {
  it("stops waiting as soon as the call is aborted", async () => {
    const abort = new AbortController();
    const model = createOfflineModel();
    const { stream } = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "[[delay:60000]] slow" }] }],
      abortSignal: abort.signal,
    });
    const reader = stream.getReader();
    const seen: string[] = [];
    for (;;) {
      const { value } = await reader.read();
      seen.push(value!.type);
      if (value!.type === "text-start") break;
    }
    const pending = reader.read();
    await settlePendingWork();
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["stream-start", "response-metadata", "text-start"]);
  });

  it("ends a streamText call with an abort part", async () => {
    const abort = new AbortController();
    const result = streamText({
      model: createOfflineModel(),
      prompt: "[[delay:60000]] slow",
      abortSignal: abort.signal,
    });
    const types: string[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === "text-start") {
        await settlePendingWork();
        abort.abort();
      }
    }
    expect(types).toContain("abort");
    expect(types).not.toContain("text-delta");
  });

  it("waits before each delta and still delivers the whole reply", async () => {
    const startedAt = performance.now();
    const result = streamText({ model: createOfflineModel(), prompt: "[[delay:20]][[stream:2]] hi" });
    expect(await result.text).toBe("You said: hi w1 w2");
    // Five deltas, each preceded by a 20 ms wait (a lower bound only; nothing waits on the clock).
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(5 * 20 - 5);
  });

  it("refuses a call whose signal is already aborted", async () => {
    const model = createOfflineModel();
    const call = model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      abortSignal: AbortSignal.abort(),
    });
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
  });
});
