import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChatRenderer } from "@/lib/cli/chat-renderer";
import { ChatScreen, chatStyle } from "@/lib/cli/chat-screen";
import type { Conversation, Item, Turn } from "@/lib/events/entities";

const CONVERSATION_ID = "01J0000000000000000000000C";
const ROOT = "01J0000000000000000000000R";
const SUBAGENT = "01J0000000000000000000000S";
const TURN = "01J0000000000000000000000T";

const conversation: Conversation = {
  id: CONVERSATION_ID,
  title: "Test",
  status: "running",
  archived: false,
  protected: false,
  agent: "default",
  model: "offline",
  effort: null,
  cwd: "/tmp",
  machine: "local",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  forkedFrom: null,
  objective: null,
  rootSessionId: ROOT,
  titleSource: "auto",
  missing: [],
};

function item(fields: Partial<Item> & Pick<Item, "id" | "seq" | "kind">): Item {
  return { sessionId: ROOT, turnId: TURN, status: "completed", createdAt: `2026-01-01T00:00:${String(fields.seq).padStart(2, "0")}.000Z`, ...fields };
}

function turn(status: Turn["status"]): Turn {
  return {
    id: TURN,
    conversationId: CONVERSATION_ID,
    sessionId: ROOT,
    status,
    model: "offline",
    effort: null,
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: status === "running" ? null : "2026-01-01T00:01:00.000Z",
    error: status === "interrupted" ? { code: "interrupted", message: "The previous turn was interrupted by the owner." } : null,
    usage: { inputTokens: 0, outputTokens: 0 },
    inputMessageIds: [],
  };
}

function renderer(): { renderer: ChatRenderer; output: () => string } {
  let written = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  const screen = new ChatScreen(sink);
  const sessions = [
    { id: ROOT, conversationId: CONVERSATION_ID, parentSessionId: null, agent: "default", model: "offline", status: "running" as const, depth: 0, createdAt: "" },
    { id: SUBAGENT, conversationId: CONVERSATION_ID, parentSessionId: ROOT, agent: "explorer", model: "offline", status: "running" as const, depth: 1, createdAt: "" },
  ];
  return { renderer: new ChatRenderer(screen, chatStyle(false), conversation, sessions), output: () => written };
}

const delta = (itemId: string, text: string, sessionId = ROOT) =>
  ({ type: "item.delta", conversationId: CONVERSATION_ID, sessionId, turnId: TURN, itemId, field: "text", delta: text }) as const;

describe("the chat renderer", () => {
  it("never prints twice what the history already showed, and continues text the history did not have", () => {
    const { renderer: view, output } = renderer();
    const reply = item({ id: "A1", seq: 2, kind: "assistant_message", text: "You said: hi w1" });
    view.history([item({ id: "U1", seq: 1, kind: "user_message", text: "hi" }), reply], 2);
    // Events published before the history was read arrive afterwards, from the item's start.
    view.handle({ type: "item.created", conversationId: CONVERSATION_ID, sessionId: ROOT, item: { ...reply, status: "streaming", text: "" } });
    view.handle(delta("A1", "You said: hi"));
    view.handle(delta("A1", " w1"));
    view.handle(delta("A1", " w2"));
    view.handle({ type: "item.completed", conversationId: CONVERSATION_ID, sessionId: ROOT, item: { ...reply, text: "You said: hi w1 w2" } });
    expect(output()).toBe(
      [
        "── earlier in this conversation (2 items) ──",
        "you: hi",
        "assistant: You said: hi w1",
        "── live ──",
        "assistant (continued): w2",
        "",
      ].join("\n"),
    );
  });

  it("labels interleaved streams and marks an interrupted message", () => {
    const { renderer: view, output } = renderer();
    view.handle({ type: "turn.started", conversationId: CONVERSATION_ID, sessionId: ROOT, turn: turn("running") });
    view.handle({ type: "item.created", conversationId: CONVERSATION_ID, sessionId: ROOT, item: item({ id: "A1", seq: 1, kind: "assistant_message", status: "streaming", text: "" }) });
    view.handle(delta("A1", "Looking"));
    view.handle({
      type: "item.created",
      conversationId: CONVERSATION_ID,
      sessionId: SUBAGENT,
      item: item({ id: "B1", seq: 1, sessionId: SUBAGENT, kind: "assistant_message", status: "streaming", text: "" }),
    });
    view.handle(delta("B1", "Found it", SUBAGENT));
    view.handle(delta("A1", " around"));
    view.handle({
      type: "item.completed",
      conversationId: CONVERSATION_ID,
      sessionId: ROOT,
      item: item({ id: "A1", seq: 1, kind: "assistant_message", status: "interrupted", text: "Looking around" }),
    });
    view.handle({ type: "turn.ended", conversationId: CONVERSATION_ID, sessionId: ROOT, turn: turn("interrupted") });
    expect(output()).toBe(
      [
        "[turn started · offline]",
        "assistant: Looking",
        "[explorer] assistant: Found it",
        "assistant (continued): around [interrupted]",
        "[turn ended: interrupted]",
        "",
      ].join("\n"),
    );
  });

  it("shows a tool call's input and streamed output, capped, with a failing exit code", () => {
    const { renderer: view, output } = renderer();
    const call = item({ id: "T1", seq: 1, kind: "tool_call", status: "streaming", toolName: "shell", input: { command: "seq 45" }, output: "" });
    view.handle({ type: "item.created", conversationId: CONVERSATION_ID, sessionId: ROOT, item: call });
    const lines = Array.from({ length: 45 }, (_, index) => `${index + 1}\n`);
    for (const line of lines) view.handle({ ...delta("T1", line), field: "output" });
    view.handle({ type: "item.completed", conversationId: CONVERSATION_ID, sessionId: ROOT, item: { ...call, status: "failed", output: lines.join(""), exitCode: 2 } });
    const printed = output().split("\n");
    expect(printed[0]).toBe('tool shell {"command":"seq 45"}');
    expect(printed.slice(1, 41)).toEqual(Array.from({ length: 40 }, (_, index) => `  ${index + 1}`));
    expect(printed.slice(41)).toEqual(["  … 5 more lines", "  → failed (exit 2)", ""]);
  });

  it("resumes from a later snapshot by printing only what is new", () => {
    const { renderer: view, output } = renderer();
    const streaming = item({ id: "A1", seq: 3, kind: "assistant_message", status: "streaming", text: "one two" });
    view.handle({ type: "snapshot", conversationId: CONVERSATION_ID, items: [streaming], turns: [turn("running")], waiting: [] });
    view.handle({ type: "snapshot", conversationId: CONVERSATION_ID, items: [{ ...streaming, text: "one two three" }], turns: [turn("running")], waiting: [] });
    expect(output()).toBe(["[turn in progress · offline]", "assistant: one two three"].join("\n"));
    expect(view.resumeSeq()).toBe(2);
  });
});
