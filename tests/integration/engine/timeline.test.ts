import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("run timeline", () => {
  it("shows a retried model call, the tool call with start, end and outcome, and the approval", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: '[[fail:503*1]] [[tool:shell {"command":"echo timeline"}]]' });
    const id = created.conversation.id;
    const approval = await harness.nextEvent(id, "approval.requested");
    await harness.runtime.decideApproval(approval.approval.id, "approve");
    const turn = await harness.turnEnded(id, created.turn.id);
    expect(turn.status).toBe("completed");
    const timeline = harness.runtime.timeline(created.turn.id);
    const kinds = timeline.map((entry) => entry.kind);
    expect(kinds).toContain("retry");
    expect(kinds).toContain("model_call");
    expect(kinds).toContain("approval");
    const tool = timeline.find((entry) => entry.kind === "tool_call")!;
    expect(tool).toMatchObject({ name: "shell", status: "completed" });
    expect(tool.endedAt! >= tool.startedAt).toBe(true);
    expect(timeline.find((entry) => entry.kind === "approval")!.status).toBe("approved");
    const sorted = [...timeline].sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));
    expect(timeline.map((entry) => entry.startedAt)).toEqual(sorted.map((entry) => entry.startedAt));
  });

  it("ends every entry of each of three turns inside its own turn", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "first [[delay:20]] [[stream:3]]" });
    const id = created.conversation.id;
    const turns = [await harness.turnEnded(id, created.turn.id)];
    for (const text of ['second [[delay:20]] [[tool:list_dir {"path":"."}]]', "third [[delay:20]] [[stream:3]]"]) {
      const sent = await harness.runtime.sendMessage(id, { text, mode: "auto" });
      turns.push(await harness.turnEnded(id, sent.turn!.id));
    }
    for (const turn of turns) {
      const timeline = harness.runtime.timeline(turn.id);
      expect(timeline.some((entry) => entry.kind === "model_call")).toBe(true);
      for (const entry of timeline) {
        expect(entry.startedAt >= turn.startedAt, `${entry.kind} starts inside turn ${turn.id}`).toBe(true);
        expect(entry.endedAt! <= turn.endedAt!, `${entry.kind} ends inside turn ${turn.id}: ${entry.endedAt} > ${turn.endedAt}`).toBe(true);
        expect(entry.endedAt! >= entry.startedAt).toBe(true);
      }
    }
  });
});
