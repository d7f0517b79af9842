import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  server = undefined;
});

describe("changing the model picker while a turn runs", () => {
  it("leaves the running turn on its model, for all its steps; the next turn uses the new one", async () => {
    server = await startFakeOpenAIServer();
    server.setDefault({ type: "text", text: "answer from the fake model" });
    harness = await startHarness({
      models: [{ id: "fake", provider: "openai-compatible", baseURL: server.url, model: "fake-model" }],
      defaultModel: "offline",
    });
    const { runtime } = harness;
    // Two model steps with the turn parked between them on an approval: the picker changes while it
    // waits, and the second step must still go to "offline".
    const created = await runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo hi" })}]]` });
    const conversationId = created.conversation.id;
    expect(created.turn.model).toBe("offline");
    const { approval } = await harness.waitForEvent(conversationId, "approval.requested");

    const updated = await runtime.updateConversation(conversationId, { model: "fake" });
    expect(updated.model).toBe("fake");
    expect(runtime.getTurn(created.turn.id).model).toBe("offline");
    await runtime.decideApproval(approval.id, "approve");

    const first = await harness.turnEnded(conversationId, created.turn.id);
    // The change landed before the turn's second model call (which follows the tool run).
    const changedAt = harness.log.findIndex(({ event }) => event.type === "conversation.updated" && event.conversation.model === "fake");
    const toolRanAt = harness.log.findIndex(({ event }) => event.type === "item.completed" && event.item.kind === "tool_call");
    expect(changedAt).toBeGreaterThan(-1);
    expect(changedAt).toBeLessThan(toolRanAt);
    expect(first).toMatchObject({ status: "completed", model: "offline" });
    expect(server.requests).toHaveLength(0);
    expect(harness.items(conversationId).at(-1)?.text).toMatch(/^Tool shell returned: /);

    const next = await runtime.sendMessage(conversationId, { text: "and now?", mode: "auto" });
    expect(next.turn?.model).toBe("fake");
    const second = await harness.turnEnded(conversationId, next.turn!.id);
    expect(second).toMatchObject({ status: "completed", model: "fake" });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.model).toBe("fake-model");
    expect(harness.items(conversationId).at(-1)).toMatchObject({ kind: "assistant_message", text: "answer from the fake model" });
    expect(runtime.listTurns(conversationId).map((turn) => turn.model)).toEqual(["offline", "fake"]);
  });

  it("leaves the running turn on its effort; the next turn uses the new one", async () => {
    harness = await startHarness({
      models: [{ id: "offline-effort", provider: "offline", effort: true }],
      defaultModel: "offline-effort",
    });
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "think hard [[delay:20]] [[stream:5]]", effort: "high" });
    const conversationId = created.conversation.id;
    expect(created.turn.effort).toBe("high");

    expect((await runtime.updateConversation(conversationId, { effort: "low" })).effort).toBe("low");
    expect(runtime.getTurn(created.turn.id).effort).toBe("high");
    expect((await harness.turnEnded(conversationId, created.turn.id)).effort).toBe("high");

    const next = await runtime.sendMessage(conversationId, { text: "lighter", mode: "auto" });
    expect(next.turn?.effort).toBe("low");
    await harness.turnEnded(conversationId, next.turn!.id);
    expect(runtime.listTurns(conversationId).map((turn) => turn.effort)).toEqual(["high", "low"]);
  });
});
