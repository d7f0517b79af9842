import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

/** Six exchanges (12 items): "message 0" … "message 5", the fourth about a zebra. */
async function sixExchanges() {
  harness = await startHarness();
  const texts = ["message 0", "message 1", "message 2", "message 3 zebra crossing", "message 4", "message 5"];
  const created = await harness.runtime.createConversation({ text: texts[0] });
  await harness.turnEnded(created.conversation.id, created.turn!.id);
  for (const text of texts.slice(1)) {
    const outcome = await harness.runtime.sendMessage(created.conversation.id, { text, mode: "auto" });
    await harness.turnEnded(created.conversation.id, outcome.turn!.id);
  }
  const id = created.conversation.id;
  const all = harness.runtime.listItems(id, { limit: 500 }).items;
  expect(all).toHaveLength(12);
  return { id, all };
}

describe("paging a conversation's items", () => {
  it("pages backward with before and tail, keeps after as it was, and gives a window around an item", async () => {
    const { id, all } = await sixExchanges();
    const seqs = all.map((item) => item.seq);

    const forward = harness.runtime.listItems(id, { after: seqs[1], limit: 3 });
    expect(forward.items.map((item) => item.seq)).toEqual(seqs.slice(2, 5));
    expect(forward.nextCursor).toBe(seqs[4]);

    const tail = harness.runtime.listItems(id, { tail: "true", limit: 5 });
    expect(tail.items.map((item) => item.seq)).toEqual(seqs.slice(7));
    expect(tail.nextCursor).toBe(seqs[7]);
    const older = harness.runtime.listItems(id, { before: tail.nextCursor!, limit: 5 });
    expect(older.items.map((item) => item.seq)).toEqual(seqs.slice(2, 7));
    const oldest = harness.runtime.listItems(id, { before: older.nextCursor!, limit: 5 });
    expect(oldest.items.map((item) => item.seq)).toEqual(seqs.slice(0, 2));
    expect(oldest.nextCursor).toBeNull();

    const window = harness.runtime.listItems(id, { around: all[6].id, limit: 4 });
    expect(window.items.map((item) => item.seq)).toEqual(seqs.slice(4, 8));
    expect(window.previousCursor).toBe(seqs[4]);
    expect(window.nextCursor).toBe(seqs[7]);
    const atStart = harness.runtime.listItems(id, { around: all[0].id, limit: 4 });
    expect(atStart.items.map((item) => item.seq)).toEqual(seqs.slice(0, 4));
    expect(atStart.previousCursor).toBeNull();
    const atEnd = harness.runtime.listItems(id, { around: all[11].id, limit: 4 });
    expect(atEnd.items.map((item) => item.seq)).toEqual(seqs.slice(8));
    expect(atEnd.nextCursor).toBeNull();

    expect(() => harness.runtime.listItems(id, { after: 1, before: 5 })).toThrow(/at most one/);
    expect(() => harness.runtime.listItems(id, { around: "01ARZ3NDEKTSV4RRFFQ69G5FAV" })).toThrow(/not in this session/);
  });

  it("finds the messages matching words, counts them, and pages the hits", async () => {
    const { id, all } = await sixExchanges();
    const zebra = harness.runtime.listItems(id, { q: "zebr" });
    // The owner's message and the offline model's echo of it.
    expect(zebra.items.map((item) => item.id)).toEqual([all[6].id, all[7].id]);
    expect(zebra.total).toBe(2);
    const messages = harness.runtime.listItems(id, { q: "message", limit: 5 });
    expect(messages.total).toBe(12);
    expect(messages.items.map((item) => item.seq)).toEqual(all.slice(0, 5).map((item) => item.seq));
    const next = harness.runtime.listItems(id, { q: "message", after: messages.nextCursor!, limit: 5 });
    expect(next.items[0].seq).toBe(all[5].seq);
    const latest = harness.runtime.listItems(id, { q: "message", tail: "true", limit: 5 });
    expect(latest.items.map((item) => item.seq)).toEqual(all.slice(7).map((item) => item.seq));
    expect(latest.nextCursor).toBe(all[7].seq);
    const earlier = harness.runtime.listItems(id, { q: "message", before: latest.nextCursor!, limit: 5 });
    expect(earlier.items.map((item) => item.seq)).toEqual(all.slice(2, 7).map((item) => item.seq));
    expect(harness.runtime.listItems(id, { q: "giraffe" })).toEqual({ items: [], nextCursor: null, total: 0 });
  });

  it("lists only the turns a page needs: the named ones and the latest few", async () => {
    const { id, all } = await sixExchanges();
    const sessionId = harness.runtime.getConversation(id).rootSessionId;
    const every = harness.runtime.listTurns(id);
    expect(every).toHaveLength(6);
    const subset = harness.runtime.listTurns(id, { sessionId, ids: [all[2].turnId!], recent: 2 });
    expect(subset.map((turn) => turn.id)).toEqual([every[1].id, every[4].id, every[5].id]);
  });
});
