import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Conversation, Turn } from "@/lib/events/entities";
import type { ListEvent } from "@/lib/events/events";
import * as queries from "@/lib/store/queries";
import type { Runtime } from "@/lib/engine/runtime";
import { pauseListeners, usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24, step (f): the pages of a conversation another node of the cluster holds are read
 * from the cluster's index tables in PostgreSQL, not from anything this node heard or indexed.
 * With every listening connection paused, node A (which holds nothing) answers every page of
 * node B's conversations exactly as B, their owner, does. Two real Runtimes on one real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: Harness;
let b: Harness;

beforeAll(async () => {
  [a, b] = await Promise.all([startHarness({}, undefined, { databaseUrl: database.postgres.url }), startHarness({}, undefined, { databaseUrl: database.postgres.url })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const spawn = (task: string) => `[[tool:spawn_agent ${JSON.stringify({ task })}]]`;
const ASK = '[[tool:ask_user {"question":"Which fruit?","choices":["apple","pear"]}]]';

/** `node` is added from what each node knows of the lease (B: itself; A: not known without asking): the rest must be equal. */
function withoutNode(conversation: Conversation): Omit<Conversation, "node"> {
  const { node: _node, ...rest } = conversation;
  return rest;
}

/** An open turn's usage so far is known only to its owner (its live part, as partial text is): the rest must be equal. */
function settled(turns: Turn[]): Array<Turn | Omit<Turn, "usage">> {
  return turns.map(({ usage, ...turn }) => (turn.endedAt ? { ...turn, usage } : turn));
}

async function idle(harness: Harness, conversationId: string): Promise<void> {
  const { pages } = harness.runtime;
  await pollUntil(
    async () =>
      (await pages.getConversation(conversationId)).status === "idle" &&
      (await pages.listSessions(conversationId)).every((session) => session.status === "idle") &&
      (await pages.listWaiting(conversationId)).length === 0,
    { what: "the conversation idle, nothing waiting" },
  );
}

/** Every root item, a page of `limit` at a time forward, each page as the node answers it. */
async function pagesForward(runtime: Runtime, conversationId: string, limit: number, session?: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let after = 0;
  for (;;) {
    const page = await runtime.pages.listItems(conversationId, { after, limit, session });
    pages.push(page);
    if (page.nextCursor === null) return pages;
    after = page.nextCursor;
  }
}

async function pagesBackward(runtime: Runtime, conversationId: string, limit: number): Promise<unknown[]> {
  const pages: unknown[] = [];
  let page = await runtime.pages.listItems(conversationId, { tail: "true", limit });
  pages.push(page);
  while (page.nextCursor !== null) {
    page = await runtime.pages.listItems(conversationId, { before: page.nextCursor, limit });
    pages.push(page);
  }
  return pages;
}

async function errorOf(reading: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await reading.then(
    () => null,
    (caught: unknown) => caught as { code: string; message: string },
  );
  if (!error) throw new Error("the read was expected to fail");
  return { code: error.code, message: error.message };
}

describe("a conversation held by another node", () => {
  it("is read on a node that heard nothing of it, page for page as its owner answers", async () => {
    const resume = await pauseListeners(database.pool);
    try {
      const made = await b.runtime.createConversation({ text: `first apple message ${spawn("child apple task [[stream:3]]")}` });
      const id = made.conversation.id;
      await idle(b, id);
      for (const text of ["second apple [[stream:4]]", "third pear [[reason:3]] [[stream:2]]", "fourth apple"]) {
        await b.runtime.sendMessage(id, { text, mode: "auto" });
        await idle(b, id);
      }
      const asking = await b.runtime.createConversation({ text: ASK });
      const parked = asking.conversation.id;
      const asked = await b.waitForEvent(parked, "question.asked");
      await b.waitForEvent(parked, "turn.updated", (event) => event.turn.status === "waiting_user");
      for (const text of ["waiting one", "waiting two"]) await b.runtime.sendMessage(parked, { text, mode: "queue" });

      // A heard nothing of either, and holds neither.
      for (const conversationId of [id, parked]) {
        expect(queries.conversationRow(a.runtime.store.index, conversationId)).toBeUndefined();
        expect(a.runtime.cluster!.placement.isHere(conversationId)).toBe(false);
        expect(b.runtime.cluster!.placement.isHere(conversationId)).toBe(true);
      }

      for (const conversationId of [id, parked]) {
        const onA = await a.runtime.pages.getConversation(conversationId);
        expect(withoutNode(onA)).toEqual(withoutNode(await b.runtime.pages.getConversation(conversationId)));
        expect(onA.title.length).toBeGreaterThan(0);
        expect(settled(await a.runtime.pages.listTurns(conversationId))).toEqual(settled(await b.runtime.pages.listTurns(conversationId)));
        expect(await a.runtime.pages.listSessions(conversationId)).toEqual(await b.runtime.pages.listSessions(conversationId));
        expect(await a.runtime.pages.listWaiting(conversationId)).toEqual(await b.runtime.pages.listWaiting(conversationId));
        for (const limit of [1, 3, 100]) {
          expect(await pagesForward(a.runtime, conversationId, limit)).toEqual(await pagesForward(b.runtime, conversationId, limit));
          expect(await pagesBackward(a.runtime, conversationId, limit)).toEqual(await pagesBackward(b.runtime, conversationId, limit));
        }
      }
      const turns = await b.runtime.pages.listTurns(id);
      expect(turns.length).toBeGreaterThanOrEqual(5);
      for (const turn of turns) expect(await a.runtime.pages.getTurn(turn.id)).toEqual(await b.runtime.pages.getTurn(turn.id));
      const subset = { sessionId: made.conversation.rootSessionId, ids: [turns[1]!.id], recent: 1 };
      expect(await a.runtime.pages.listTurns(id, subset)).toEqual(await b.runtime.pages.listTurns(id, subset));

      // The child session's history, and a search of the root's messages, forward and back.
      const child = (await b.runtime.pages.listSessions(id)).find((session) => session.parentSessionId !== null)!;
      expect(await pagesForward(a.runtime, id, 1, child.id)).toEqual(await pagesForward(b.runtime, id, 1, child.id));
      for (const query of [{ q: "apple" }, { q: "apple", limit: 1 }, { q: "apple", tail: "true" as const, limit: 1 }, { q: "pear" }, { q: "nothing-like-it" }]) {
        const onA = await a.runtime.pages.listItems(id, query);
        expect(onA).toEqual(await b.runtime.pages.listItems(id, query));
      }
      expect((await a.runtime.pages.listItems(id, { q: "apple" })).total).toBeGreaterThanOrEqual(3);
      // A window around each item (a link to a found message), at limits that reach either end or neither.
      const rootItems = (await b.runtime.pages.listItems(id, { limit: 500 })).items;
      expect(rootItems.length).toBeGreaterThanOrEqual(8);
      for (const item of rootItems) {
        for (const limit of [1, 2, 3, 5, 100]) {
          const onA = await a.runtime.pages.listItems(id, { around: item.id, limit });
          expect(onA, `around item ${item.seq}, limit ${limit}`).toEqual(await b.runtime.pages.listItems(id, { around: item.id, limit }));
          expect(onA.items.map((found) => found.id)).toContain(item.id);
        }
      }
      expect(await errorOf(a.runtime.pages.listItems(id, { around: child.id, session: child.id }))).toEqual(await errorOf(b.runtime.pages.listItems(id, { around: child.id, session: child.id })));
      const childItem = (await b.runtime.pages.listItems(id, { session: child.id })).items[0]!;
      expect(await errorOf(a.runtime.pages.listItems(id, { around: childItem.id }))).toEqual(await errorOf(b.runtime.pages.listItems(id, { around: childItem.id })));

      // The waiting conversation: its question, its parked turn, its two waiting messages.
      expect(await a.runtime.pages.getQuestion(asked.question.id)).toEqual(await b.runtime.pages.getQuestion(asked.question.id));
      expect((await a.runtime.pages.getQuestion(asked.question.id)).status).toBe("pending");
      expect((await a.runtime.pages.listWaiting(parked)).map((waiting) => waiting.text)).toEqual(["waiting one", "waiting two"]);
      expect((await a.runtime.pages.getConversation(parked)).status).toBe("waiting");

      // The same errors as the owner's.
      expect(await errorOf(a.runtime.pages.listItems(id, { session: parked }))).toEqual(await errorOf(b.runtime.pages.listItems(id, { session: parked })));
      expect(await errorOf(a.runtime.pages.listItems(id, { after: 1, tail: "true" }))).toEqual(await errorOf(b.runtime.pages.listItems(id, { after: 1, tail: "true" })));
      // Still nothing of B's conversations in A's own index: every answer came from the database.
      expect(queries.conversationRow(a.runtime.store.index, id)).toBeUndefined();
    } finally {
      resume();
    }
  });

  it("answers not_found for a conversation, a turn and a question no node has", async () => {
    const unknown = "01JZZZZZZZZZZZZZZZZZZZZZZZ";
    for (const read of [
      (runtime: Runtime) => runtime.pages.getConversation(unknown),
      (runtime: Runtime) => runtime.pages.listItems(unknown, {}),
      (runtime: Runtime) => runtime.pages.listTurns(unknown),
      (runtime: Runtime) => runtime.pages.listWaiting(unknown),
      (runtime: Runtime) => runtime.pages.listSessions(unknown),
      (runtime: Runtime) => runtime.pages.getTurn(unknown),
      (runtime: Runtime) => runtime.pages.getQuestion(unknown),
    ]) {
      expect((await errorOf(read(a.runtime))).code).toBe("not_found");
    }
  });
});

describe("list events of another node's conversations", () => {
  it("reach this node's sidebars from the feed and the database: created, updated, approval requested and decided, deleted", async () => {
    const heard: ListEvent[] = [];
    const stop = a.runtime.subscribeList((delivered) => heard.push(delivered.event));
    try {
      const made = await b.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo sidebar" })}]]` });
      const id = made.conversation.id;
      const requested = await b.waitForEvent(id, "approval.requested");
      const of = (type: ListEvent["type"]) => heard.filter((event) => event.type === type && "conversationId" in event && event.conversationId === id);
      await pollUntil(() => of("conversation.created").length > 0 && of("approval.requested").length > 0, { what: "A hearing the creation and the approval" });
      const created = of("conversation.created")[0] as Extract<ListEvent, { type: "conversation.created" }>;
      expect(created.conversation).toMatchObject({ id, title: made.conversation.title, rootSessionId: made.conversation.rootSessionId });
      const asked = of("approval.requested")[0] as Extract<ListEvent, { type: "approval.requested" }>;
      expect(asked.approval).toMatchObject({ id: requested.approval.id, conversationId: id, toolName: "shell" });

      await b.runtime.decideApproval(requested.approval.id, "deny");
      await pollUntil(() => of("approval.decided").length > 0, { what: "A hearing the decision" });
      expect((of("approval.decided")[0] as Extract<ListEvent, { type: "approval.decided" }>).approval).toMatchObject({ id: requested.approval.id, status: "denied" });
      await idle(b, id);
      await pollUntil(() => of("conversation.updated").some((event) => event.type === "conversation.updated" && event.conversation.status === "idle"), { what: "A hearing the conversation idle" });

      await b.runtime.deleteConversation(id);
      await pollUntil(() => of("conversation.deleted").length === 1, { what: "A hearing the deletion" });
      // A's own owner publishes nothing for it: every event came once, from B's records.
      expect(of("conversation.created")).toHaveLength(1);
      expect(of("approval.requested")).toHaveLength(1);
      expect(of("approval.decided")).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
