import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { createOfflineModel } from "@/lib/models/offline-model";
import { readParts } from "./stream-parts";

const INSTRUCTION = "You are compacting a conversation.\nSummarize everything above.";

describe("offline model compaction", () => {
  it("summarizes the first line of every other user message", async () => {
    const result = streamText({
      model: createOfflineModel(),
      system: INSTRUCTION,
      messages: [
        { role: "user", content: "plan the trip\nwith details" },
        { role: "assistant", content: "You said: plan the trip" },
        { role: "user", content: 'book it [[tool:lookup {"query":"x"}]]' },
      ],
    });
    const parts = await readParts(result.fullStream);
    expect(parts.some((part) => part.type === "tool-call")).toBe(false);
    expect(await result.text).toBe('Summary: plan the trip; book it [[tool:lookup {"query":"x"}]]');
  });

  it("flattens an earlier summary into the new one", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: "Summary: first; second\n(compacted)" },
        { role: "user", content: "third" },
        { role: "assistant", content: "You said: third" },
        { role: "user", content: "fourth\nmore" },
        { role: "user", content: INSTRUCTION },
      ],
    });
    expect(await result.text).toBe("Summary: first; second; third; fourth");
  });
});
