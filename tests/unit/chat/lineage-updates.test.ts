import { describe, expect, it } from "vitest";
import { lineageAfter, type LineagePlace } from "@/components/chat/lineage-updates";
import type { Conversation } from "@/lib/events/entities";

function conversation(id: string, fields: Partial<Conversation>): Conversation {
  return {
    id,
    title: id,
    status: "idle",
    archived: false,
    protected: false,
    agent: "default",
    model: "offline",
    effort: "medium",
    cwd: "/tmp",
    machine: "local",
    createdAt: "2026-12-03T08:00:00.000Z",
    updatedAt: "2026-12-03T08:00:00.000Z",
    forkedFrom: null,
    restartOf: null,
    objective: null,
    rootSessionId: `${id}-root`,
    titleSource: "auto",
    missing: [],
    ...fields,
  } as Conversation;
}

const original: LineagePlace = { id: "A", title: "Original", parentId: null, restartOf: null };
const created = (value: Conversation) => ({ type: "conversation.created" as const, conversationId: value.id, conversation: value });

describe("‹ n/m › follows list events", () => {
  it("a new restart of one of this conversation's messages becomes its newest version", () => {
    const first = lineageAfter({ restarted: {}, siblings: null }, original, created(conversation("B", { title: "Restart 1", forkedFrom: { conversationId: "A", itemId: null }, restartOf: "m1" })));
    expect(first.restarted.m1).toEqual([{ id: "A", title: "Original" }, { id: "B", title: "Restart 1" }]);
    const second = lineageAfter(first, original, created(conversation("C", { forkedFrom: { conversationId: "A", itemId: null }, restartOf: "m1" })));
    expect(second.restarted.m1.map((version) => version.id)).toEqual(["A", "B", "C"]);
  });

  it("a restart of the same message joins the siblings of a restart; forks and other messages do not", () => {
    const place: LineagePlace = { id: "B", title: "Restart 1", parentId: "A", restartOf: "m1" };
    const lineage = { restarted: {}, siblings: [{ id: "A", title: "Original" }, { id: "B", title: "Restart 1" }] };
    const fork = lineageAfter(lineage, place, created(conversation("F", { forkedFrom: { conversationId: "A", itemId: null } })));
    expect(fork).toBe(lineage);
    const other = lineageAfter(lineage, place, created(conversation("D", { forkedFrom: { conversationId: "A", itemId: null }, restartOf: "m2" })));
    expect(other).toBe(lineage);
    const sibling = lineageAfter(lineage, place, created(conversation("C", { forkedFrom: { conversationId: "A", itemId: null }, restartOf: "m1" })));
    expect(sibling.siblings!.map((version) => version.id)).toEqual(["A", "B", "C"]);
  });

  it("follows renames and deletions of a version", () => {
    const lineage = { restarted: { m1: [{ id: "A", title: "Original" }, { id: "B", title: "Restart 1" }] }, siblings: null };
    const renamed = lineageAfter(lineage, original, { type: "conversation.updated", conversationId: "B", conversation: conversation("B", { title: "Better", forkedFrom: { conversationId: "A", itemId: null }, restartOf: "m1" }) });
    expect(renamed.restarted.m1[1].title).toBe("Better");
    const deleted = lineageAfter(renamed, original, { type: "conversation.deleted", conversationId: "B" });
    expect(deleted.restarted.m1).toEqual([{ id: "A", title: "Original" }]);
  });
});
