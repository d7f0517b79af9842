import { describe, expect, it } from "vitest";
import { conversationReducer, initialState, type ConversationState } from "@/components/chat/conversation-state";
import type { Conversation, Item } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";

/**
 * A page of history has no cut with the live stream: a reply streaming while the reader is on
 * an old window (a find hit) must come out whole — no delta lost, none applied twice — when the
 * window moves back to the end.
 */
const ROOT = "S1";
const conversation = { id: "C1", rootSessionId: ROOT, title: "t", status: "running" } as unknown as Conversation;

function item(seq: number, text: string, status: Item["status"] = "completed"): Item {
  return { id: `i${seq}`, seq, sessionId: ROOT, turnId: "T1", kind: "assistant_message", status, text, createdAt: "2026-12-02T00:00:00Z" };
}

const event = (value: unknown) => ({ type: "event" as const, event: value as ConversationEvent, receivedAt: 0 });
const delta = (itemId: string, text: string) => event({ type: "item.delta", itemId, field: "text", delta: text });
const textOf = (state: ConversationState, id: string) => state.items.find((candidate) => candidate.id === id)?.text;

function start(): ConversationState {
  return initialState({ conversation, items: [item(1, "one"), item(2, "two")], turns: [], approvals: [], questions: [], waiting: [] });
}

describe("conversation state: pages against the live stream", () => {
  it("keeps a reply's deltas while the window is away, and the stream's copy wins over a stale page", () => {
    let state = start();
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(1, "one")], hasOlder: false, hasNewer: true });
    state = conversationReducer(state, event({ type: "item.created", item: item(3, "Hel", "streaming") }));
    state = conversationReducer(state, delta("i3", "lo"));
    state = conversationReducer(state, delta("i3", " wor"));
    expect(state.items.map((entry) => entry.id)).toEqual(["i1"]);
    // The page was read on the server when the reply said "Hello": older than what the stream kept.
    state = conversationReducer(state, { type: "page", placement: "newer", items: [item(2, "two"), item(3, "Hello", "streaming")], hasNewer: false });
    state = conversationReducer(state, delta("i3", "ld"));
    expect(state.items.map((entry) => entry.id)).toEqual(["i1", "i2", "i3"]);
    expect(textOf(state, "i3")).toBe("Hello world");
    expect(state.beyond).toEqual({});
  });

  it("a jump away keeps the streaming item aside, and the tail page brings it back as the stream kept it", () => {
    let state = start();
    state = conversationReducer(state, event({ type: "item.created", item: item(3, "a", "streaming") }));
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(1, "one")], hasOlder: false, hasNewer: true });
    state = conversationReducer(state, delta("i3", "b"));
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(2, "two"), item(3, "a", "streaming")], hasOlder: true, hasNewer: false });
    state = conversationReducer(state, delta("i3", "c"));
    expect(textOf(state, "i3")).toBe("abc");
  });

  it("a page that shows an item finished replaces the stream's open copy", () => {
    let state = start();
    state = conversationReducer(state, event({ type: "item.created", item: item(3, "par", "streaming") }));
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(2, "two"), item(3, "partial and done")], hasOlder: true, hasNewer: false });
    expect(state.items.find((entry) => entry.id === "i3")).toMatchObject({ status: "completed", text: "partial and done" });
  });

  it("items created after a tail page was read join it at the end", () => {
    let state = start();
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(1, "one")], hasOlder: false, hasNewer: true });
    state = conversationReducer(state, event({ type: "item.created", item: item(4, "late") }));
    state = conversationReducer(state, { type: "page", placement: "window", items: [item(2, "two"), item(3, "three")], hasOlder: true, hasNewer: false });
    expect(state.items.map((entry) => entry.id)).toEqual(["i2", "i3", "i4"]);
  });
});
