import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loseIndex, writeCrashedTurn, writeCrashWhileStartingWaitingMessage } from "../../support/crash-fixture";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness | undefined;
let server: FakeOpenAIServer;
let cleanup: () => void = () => {};
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await server?.close();
  cleanup();
});

async function setUp(): Promise<string> {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  server = await startFakeOpenAIServer();
  return temp.home;
}

function expectEveryLineParses(conversationId: string, sessionId: string): void {
  const store = harness!.runtime.store;
  for (const file of [store.readMetadata(conversationId), store.readSession(conversationId, sessionId)]) {
    expect(file.torn).toBeNull();
    expect(file.invalid).toEqual([]);
  }
}

describe("crash recovery at start", () => {
  it.each([
    ["with the index up to date", false],
    ["with the index lost", true],
  ])("closes a turn left open as interrupted (server_stopped), keeping partial text and flagging started tools (%s)", async (_, indexLost) => {
    const home = await setUp();
    const crashed = await writeCrashedTurn(home, {
      model: "fake",
      cwd: home,
      partialText: "partial answer so far",
      toolOutput: "half of the output",
    });
    if (indexLost) loseIndex(home);

    harness = await startHarness(fakeModelConfig(server.url), home);
    const { runtime } = harness;
    const { conversationId, turnId } = crashed;

    const turn = runtime.getTurn(turnId);
    expect(turn.status).toBe("interrupted");
    expect(turn.error?.code).toBe("server_stopped");
    expect(turn.endedAt).not.toBeNull();
    expect(harness.events(conversationId, "turn.ended").map((event) => event.turn.id)).toEqual([turnId]);

    const items = harness.items(conversationId);
    expect(items.map((item) => [item.kind, item.status])).toEqual([
      ["user_message", "completed"],
      ["assistant_message", "interrupted"],
      ["tool_call", "unknown"],
      ["notice", "completed"],
    ]);
    expect(items[1]).toMatchObject({ id: crashed.answerId, text: "partial answer so far" });
    expect(items[2]).toMatchObject({ id: crashed.toolCallId, toolName: "shell", output: "half of the output" });
    expect(items[3].turnId).toBe(turnId);
    expect(items[3].text).toMatch(/server stopped/i);
    expect(items[3].text).toContain("touch effect.marker");
    expect(runtime.getConversation(conversationId).status).toBe("idle");
    // Nothing was repeated blindly.
    expect(server.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(home, "effect.marker"))).toBe(false);

    // The conversation takes a new message; the model is told what is unknown and to inspect first.
    server.enqueue({ type: "text", text: "I will inspect first" });
    const next = await runtime.sendMessage(conversationId, { text: "carry on", mode: "auto" });
    expect(next.message.status).toBe("started");
    expect((await harness.turnEnded(conversationId, next.turn!.id)).status).toBe("completed");
    expect(server.requests).toHaveLength(1);
    const sent = JSON.stringify(server.requests[0].body.messages);
    expect(sent).toContain("partial answer so far");
    expect(sent).toContain("outcome unknown");
    expect(sent).toContain("Inspect the current state before repeating it");
    expect(sent).toMatch(/interrupted because the Atrium server stopped/);
    expectEveryLineParses(conversationId, crashed.sessionId);
  });

  it("then starts the waiting messages, in order", async () => {
    const home = await setUp();
    const crashed = await writeCrashedTurn(home, { model: "fake", cwd: home, waiting: ["queued one", "queued two"] });
    server.setDefault({ type: "text", text: "answered" });

    harness = await startHarness(fakeModelConfig(server.url), home);
    const turns = await harness.settledTurns(crashed.conversationId, 3);

    expect(turns.map((turn) => [turn.status, turn.inputMessageIds])).toEqual([
      ["interrupted", [crashed.messageId]],
      ["completed", [crashed.waitingIds[0]]],
      ["completed", [crashed.waitingIds[1]]],
    ]);
    expect(harness.runtime.listWaiting(crashed.conversationId)).toEqual([]);
    const lastUserMessages = server.requests.map((request) => {
      const messages = request.body.messages as Array<{ role: string; content: unknown }>;
      return messages.filter((message) => message.role === "user").at(-1)?.content;
    });
    expect(lastUserMessages).toEqual(["queued one", "queued two"]);
  });

  it("leaves a turn parked on an approval parked; approving it runs the tool and completes the turn", async () => {
    const home = await setUp();
    const crashed = await writeCrashedTurn(home, {
      model: "fake",
      cwd: fs.mkdtempSync(path.join(home, "workspace-")),
      toolState: "awaiting_approval",
      toolInput: { command: "echo parked-ok" },
    });
    server.enqueue({ type: "text", text: "all done" });

    harness = await startHarness(fakeModelConfig(server.url), home);
    const { runtime } = harness;
    expect(runtime.getTurn(crashed.turnId).status).toBe("waiting_approval");
    expect(runtime.getConversation(crashed.conversationId).status).toBe("waiting");
    expect((await runtime.listApprovals("pending")).map((approval) => approval.id)).toEqual([crashed.approvalId]);

    await runtime.decideApproval(crashed.approvalId!, "approve");
    const turn = await harness.turnEnded(crashed.conversationId, crashed.turnId);
    expect(turn).toMatchObject({ status: "completed", error: null });
    const items = harness.items(crashed.conversationId);
    expect(items.find((item) => item.kind === "tool_call")).toMatchObject({ status: "completed", output: "parked-ok\n" });
    expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "all done" });
  });

  it("answers a waiting message whose turn was being started when the server died", async () => {
    const home = await setUp();
    const crashed = await writeCrashWhileStartingWaitingMessage(home, { model: "offline", cwd: home, text: "do not lose me" });

    harness = await startHarness({}, home);
    // Recovery is over once start() has returned: by then the message must have a turn.
    const started = harness.runtime.listTurns(crashed.conversationId);
    expect(started.map((turn) => turn.inputMessageIds.includes(crashed.messageId))).toEqual([false, true]);
    const turns = await harness.settledTurns(crashed.conversationId, 2);
    expect(turns[1]).toMatchObject({ status: "completed", inputMessageIds: [crashed.messageId] });
    const items = harness.items(crashed.conversationId);
    expect(items.filter((item) => item.text === "do not lose me").map((item) => item.id)).toEqual([crashed.messageId]);
    expect(items.find((item) => item.id === crashed.messageId)?.turnId).toBe(turns[1].id);
    expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "You said: do not lose me" });
    expect(harness.runtime.listWaiting(crashed.conversationId)).toEqual([]);
  });
});
