import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
  harness = await startHarness(fakeModelConfig(server.url));
});
afterEach(async () => {
  await harness.close();
  await server.close();
});

describe("an OpenAI-compatible provider over loopback", () => {
  it("streams the answer as deltas and reports the provider's usage on the turn", async () => {
    server.enqueue({ type: "text", text: "Hello from the fake provider", usage: { promptTokens: 123, completionTokens: 5 } });
    const created = await harness.runtime.createConversation({ text: "hi" });
    const conversationId = created.conversation.id;

    const turn = await harness.turnEnded(conversationId, created.turn.id);
    expect(turn.status).toBe("completed");
    expect(turn.usage).toEqual({ inputTokens: 123, outputTokens: 5 });
    expect(harness.runtime.getTurn(created.turn.id).usage).toEqual({ inputTokens: 123, outputTokens: 5 });

    const answer = harness.items(conversationId).find((item) => item.kind === "assistant_message");
    expect(answer).toMatchObject({ status: "completed", text: "Hello from the fake provider" });
    const deltas = harness.events(conversationId, "item.delta").filter((event) => event.itemId === answer?.id);
    expect(deltas.length).toBe(5);
    expect(deltas.map((event) => event.delta).join("")).toBe("Hello from the fake provider");

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body).toMatchObject({ model: "fake-model", stream: true, stream_options: { include_usage: true } });
  });

  it("runs a tool call over two model steps and sends its result back", async () => {
    fs.writeFileSync(path.join(harness.cwd, "note.txt"), "the note says hi\n");
    server.enqueue(
      { type: "tool_call", name: "read_file", arguments: { path: "note.txt" }, id: "call_1", usage: { promptTokens: 50, completionTokens: 7 } },
      { type: "text", text: "The note says hi.", usage: { promptTokens: 80, completionTokens: 4 } },
    );
    const created = await harness.runtime.createConversation({ text: "read the note" });
    const conversationId = created.conversation.id;

    const turn = await harness.turnEnded(conversationId, created.turn.id);
    expect(turn.status).toBe("completed");
    expect(turn.usage).toEqual({ inputTokens: 130, outputTokens: 11 });
    const items = harness.items(conversationId);
    expect(items.map((item) => item.kind)).toEqual(["user_message", "tool_call", "assistant_message"]);
    expect(items[1]).toMatchObject({ toolName: "read_file", toolCallId: "call_1", status: "completed", input: { path: "note.txt" } });
    expect(items[1].output).toContain("the note says hi");
    expect(items[2]).toMatchObject({ status: "completed", text: "The note says hi." });

    expect(server.requests).toHaveLength(2);
    const messages = server.requests[1].body.messages as Array<Record<string, any>>;
    const call = messages.find((message) => message.role === "assistant" && message.tool_calls);
    expect(call?.tool_calls).toMatchObject([{ id: "call_1", function: { name: "read_file" } }]);
    expect(JSON.parse(call?.tool_calls[0].function.arguments)).toEqual({ path: "note.txt" });
    const result = messages.find((message) => message.role === "tool");
    expect(result).toMatchObject({ tool_call_id: "call_1" });
    expect(result?.content).toContain("the note says hi");
  });
});
