import { APICallError } from "@ai-sdk/provider";
import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { createOfflineModel } from "@/lib/models/offline-model";
import { readParts } from "./stream-parts";

type LanguageModel = ReturnType<typeof createOfflineModel>;

/** One model call with the SDK's own retries off, so each attempt is visible. */
async function callOnce(model: LanguageModel, prompt: string, turnId?: string) {
  const errors: unknown[] = [];
  const result = streamText({
    model,
    prompt,
    maxRetries: 0,
    headers: turnId === undefined ? undefined : { "x-atrium-turn-id": turnId },
    onError: ({ error }) => {
      errors.push(error);
    },
  });
  const parts = await readParts(result.fullStream);
  const text = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : [])).join("");
  return { errors, text };
}

describe("offline model simulated failures", () => {
  it("fails the first N calls of a turn, then answers", async () => {
    const model = createOfflineModel();
    const prompt = "[[fail:503*2]] hello";

    const first = await callOnce(model, prompt, "turn-1");
    const second = await callOnce(model, prompt, "turn-1");
    const third = await callOnce(model, prompt, "turn-1");

    for (const attempt of [first, second]) {
      expect(attempt.text).toBe("");
      expect(attempt.errors).toHaveLength(1);
      const error = attempt.errors[0];
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 503, isRetryable: true, message: "offline model: simulated 503" });
    }
    expect(third).toEqual({ errors: [], text: "You said: hello" });
  });

  it("counts each turn id separately", async () => {
    const model = createOfflineModel();
    expect((await callOnce(model, "[[fail:500]] a", "turn-a")).errors).toHaveLength(1);
    expect((await callOnce(model, "[[fail:500]] a", "turn-b")).errors).toHaveLength(1);
    expect((await callOnce(model, "[[fail:500]] a", "turn-a")).text).toBe("You said: a");
  });

  it("identifies the turn by its last user message when no turn id is sent", async () => {
    const model = createOfflineModel();
    expect((await callOnce(model, "[[fail:503]] same")).errors).toHaveLength(1);
    expect((await callOnce(model, "[[fail:503]] other")).errors).toHaveLength(1);
    expect((await callOnce(model, "[[fail:503]] same")).text).toBe("You said: same");
  });

  it("marks 400 as permanent and 429 as temporary with a zero retry-after", async () => {
    const model = createOfflineModel();
    const [badRequest] = (await callOnce(model, "[[fail:400]] x", "turn-400")).errors;
    expect(badRequest).toMatchObject({ statusCode: 400, isRetryable: false });
    const [tooMany] = (await callOnce(model, "[[fail:429]] x", "turn-429")).errors;
    expect(tooMany).toMatchObject({ statusCode: 429, isRetryable: true, responseHeaders: { "retry-after": "0" } });
  });

  it("is retried by the SDK through its retry-after header", async () => {
    const result = streamText({
      model: createOfflineModel(),
      prompt: "[[fail:429*2]] patience",
      maxRetries: 2,
      headers: { "x-atrium-turn-id": "turn-retried" },
    });
    expect(await result.text).toBe("You said: patience");
  });
});

describe("offline model turn tracking", () => {
  it("forgets the oldest turn beyond 1000 tracked turns", async () => {
    const model = createOfflineModel();
    const call = (turnId: string) =>
      model.doGenerate({
        prompt: [{ role: "user", content: [{ type: "text", text: "[[fail:503]] hi" }] }],
        headers: { "x-atrium-turn-id": turnId },
      });

    await expect(call("oldest")).rejects.toMatchObject({ statusCode: 503 });
    await expect(call("kept")).rejects.toMatchObject({ statusCode: 503 });
    await expect(call("kept")).resolves.toMatchObject({ finishReason: { unified: "stop" } });
    for (let index = 0; index < 999; index += 1) {
      await expect(call(`filler-${index}`)).rejects.toMatchObject({ statusCode: 503 });
    }
    // "kept" was used again after "oldest", so only "oldest" has been dropped and fails anew.
    await expect(call("kept")).resolves.toMatchObject({ finishReason: { unified: "stop" } });
    await expect(call("oldest")).rejects.toMatchObject({ statusCode: 503 });
  });
});
