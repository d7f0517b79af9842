import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { OFFLINE_MODEL_NOTICE, createOfflineModel } from "@/lib/models/offline-model";
import { readParts, reasoningDeltas, textDeltas } from "./stream-parts";

describe("offline model replies", () => {
  it("is a v3 language model named offline", () => {
    const model = createOfflineModel();
    expect(model).toMatchObject({ specificationVersion: "v3", provider: "offline", modelId: "offline", supportedUrls: {} });
    expect(OFFLINE_MODEL_NOTICE).toContain("not an LLM");
  });

  it("echoes the input word by word", async () => {
    const result = streamText({ model: createOfflineModel(), prompt: "hello there\nfriend" });
    const parts = await readParts(result.fullStream);
    expect(textDeltas(parts)).toEqual(["You", " said:", " hello", " there", "\nfriend"]);
    expect(await result.text).toBe("You said: hello there\nfriend");
    expect(await result.finishReason).toBe("stop");
  });

  it("appends N streamed words after the echo", async () => {
    const result = streamText({ model: createOfflineModel(), prompt: "count [[stream:4]] please" });
    const deltas = textDeltas(await readParts(result.fullStream));
    expect(deltas).toHaveLength(8);
    expect(deltas.join("")).toBe("You said: count please w1 w2 w3 w4");
  });

  it("streams reasoning before the text", async () => {
    const result = streamText({ model: createOfflineModel(), prompt: "[[reason:3]] think first" });
    const parts = await readParts(result.fullStream);
    expect(reasoningDeltas(parts)).toEqual(["r1", " r2", " r3"]);
    const types = parts.map((part) => part.type);
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-start"));
    expect(await result.reasoningText).toBe("r1 r2 r3");
    expect(await result.text).toBe("You said: think first");
  });

  it("answers the last user message only", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: "first [[stream:5]]" },
        { role: "assistant", content: "You said: first w1 w2 w3 w4 w5" },
        { role: "user", content: "second" },
      ],
    });
    expect(await result.text).toBe("You said: second");
  });

  it("reports estimated input tokens and the words it streamed", async () => {
    const system = "be brief";
    const prompt = "twelve chars [[reason:2]]";
    const result = streamText({ model: createOfflineModel(), system, prompt });
    await readParts(result.fullStream);
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(Math.ceil((system.length + prompt.length) / 4));
    expect(usage.outputTokens).toBe(4 + 2);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(2);
  });

  it("answers the same way without streaming", async () => {
    const result = await generateText({ model: createOfflineModel(), prompt: "quiet [[reason:1]][[stream:2]]" });
    expect(result.text).toBe("You said: quiet w1 w2");
    expect(result.reasoningText).toBe("r1");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.outputTokens).toBe(5 + 1);
  });
});
