import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { isAlive, liveProcessesInGroup } from "../../support/process-group";
import { fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

let harness: Harness;
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  server = undefined;
});

const OWNER_NOTICE = "The previous turn was interrupted by the owner.";

/** The text of one chat-completions message as the provider received it. */
function textOf(message: { content?: unknown }): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) return message.content.map((part: { text?: string }) => part.text ?? "").join("");
  return "";
}

describe("interrupt", () => {
  it("keeps the partial answer as an interrupted item and appends the owner's notice", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "go [[delay:20]] [[stream:200]]" });
    const conversationId = created.conversation.id;
    await harness.waitForEvent(conversationId, "item.delta", (event) => event.delta === " w2");

    let statusAtTurnEnd: string | undefined;
    const detach = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (event.type === "turn.ended") statusAtTurnEnd = runtime.getConversation(conversationId).status;
    });
    const interrupted = await runtime.interrupt(conversationId);
    expect(interrupted?.id).toBe(created.turn.id);
    const turn = await harness.turnEnded(conversationId, created.turn.id);
    detach();
    expect(turn).toMatchObject({ status: "interrupted", error: null });
    // turn.ended is published after the conversation's status has changed.
    expect(statusAtTurnEnd).toBe("idle");

    const items = harness.items(conversationId);
    expect(items.map((item) => [item.kind, item.status])).toEqual([
      ["user_message", "completed"],
      ["assistant_message", "interrupted"],
      ["notice", "completed"],
    ]);
    expect(items[1].text).toMatch(/^You said: go w1 w2/);
    expect(items[1].text).not.toMatch(/w200$/);
    expect(items[2]).toMatchObject({ turnId: created.turn.id, text: OWNER_NOTICE });
    // What clients saw streamed is exactly what was kept.
    const streamed = harness
      .events(conversationId, "item.delta")
      .filter((event) => event.itemId === items[1].id)
      .map((event) => event.delta)
      .join("");
    expect(items[1].text).toBe(streamed);
    expect(runtime.getConversation(conversationId).status).toBe("idle");
    expect(await runtime.interrupt(conversationId)).toBeNull();
  });

  it("keeps unfinished reasoning as an interrupted item", async () => {
    harness = await startHarness();
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "think [[delay:20]] [[reason:200]]" });
    const conversationId = created.conversation.id;
    await harness.waitForEvent(conversationId, "item.delta", (event) => event.field === "reasoning" && event.delta === " r3");

    await runtime.interrupt(conversationId);
    expect((await harness.turnEnded(conversationId, created.turn.id)).status).toBe("interrupted");
    const items = harness.items(conversationId);
    expect(items.map((item) => [item.kind, item.status])).toEqual([
      ["user_message", "completed"],
      ["reasoning", "interrupted"],
      ["notice", "completed"],
    ]);
    expect(items[1].text).toMatch(/^r1 r2 r3/);
    expect(items[1].text).not.toMatch(/r200$/);
  });

  it("marks a running shell call interrupted and kills its whole process group", async () => {
    // The command prints its pids for the test to check on the host: outside a PID namespace.
    harness = await startHarness({ approvals: { shell: "auto" }, sandbox: { mode: "off" } });
    const { runtime } = harness;
    const command = 'sleep 30 & echo "pids $$ $!"; wait';
    const created = await runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command })}]]` });
    const conversationId = created.conversation.id;

    let pids: RegExpMatchArray | null = null;
    await waitUntil(() => {
      const call = harness.items(conversationId).find((item) => item.kind === "tool_call");
      pids = call?.output?.match(/pids (\d+) (\d+)/) ?? null;
      return pids !== null;
    }, "the shell command to print its pids");
    const [, shellPid, sleepPid] = pids!.map(Number);
    expect(isAlive(sleepPid)).toBe(true);
    expect(liveProcessesInGroup(shellPid).map((process) => process.pid)).toContain(sleepPid);

    await runtime.interrupt(conversationId);
    const turn = await harness.turnEnded(conversationId, created.turn.id);
    expect(turn.status).toBe("interrupted");

    const call = harness.items(conversationId).find((item) => item.kind === "tool_call");
    expect(call).toMatchObject({ status: "interrupted", toolName: "shell" });
    expect(call?.output).toContain("pids");
    await waitUntil(() => liveProcessesInGroup(shellPid).length === 0, `process group ${shellPid} to be gone`, 5_000);
    expect(isAlive(sleepPid)).toBe(false);
    expect(harness.items(conversationId).at(-1)).toMatchObject({ kind: "notice", text: OWNER_NOTICE });
  });

  it("sends the interrupted partial answer and the notice with the next turn's model request", async () => {
    server = await startFakeOpenAIServer();
    server.enqueue({ type: "hang", text: "partial words from the model", afterChunks: 3 }, { type: "text", text: "fine" });
    harness = await startHarness(fakeModelConfig(server.url));
    const { runtime } = harness;
    const created = await runtime.createConversation({ text: "first question" });
    const conversationId = created.conversation.id;
    await waitUntil(
      () => harness.items(conversationId).some((item) => item.kind === "assistant_message" && item.text === "partial words from"),
      "three streamed deltas",
    );

    await runtime.interrupt(conversationId);
    expect((await harness.turnEnded(conversationId, created.turn.id)).status).toBe("interrupted");
    const partial = harness.items(conversationId).find((item) => item.kind === "assistant_message");
    expect(partial).toMatchObject({ status: "interrupted", text: "partial words from" });

    const next = await runtime.sendMessage(conversationId, { text: "second question", mode: "auto" });
    expect((await harness.turnEnded(conversationId, next.turn!.id)).status).toBe("completed");
    expect(server.requests).toHaveLength(2);
    const sent = (server.requests[1].body.messages as Array<{ role: string; content?: unknown }>)
      .filter((message) => message.role !== "system")
      .map((message) => [message.role, textOf(message)]);
    const noticeIndex = sent.findIndex(([role, text]) => role === "user" && text.includes(OWNER_NOTICE));
    expect(noticeIndex).toBeGreaterThan(-1);
    expect(sent.slice(0, noticeIndex)).toEqual([
      ["user", "first question"],
      ["assistant", "partial words from"],
    ]);
    expect(sent.at(-1)).toEqual(["user", "second question"]);
  });
});
