import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { listItems } from "@/lib/store/queries";
import { HeldWritesFs } from "../../support/held-writes-fs";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";
import { expectAllConsistent, expectReindexEqualsLive, expectTakesNewMessage } from "./consistency";

/**
 * Issue 22: the JSONL record is flushed, then the SQLite index refuses it (a real SqliteError
 * from the index transaction, through the StorageFs seam). The request answers 507/503 with
 * the contract's code, the record stays in the files, and the index catches up from them.
 */
let harness: Harness;
let faults: HeldWritesFs;
afterEach(async () => harness?.close());

interface IndexFault {
  code: string;
  status: 507 | 503;
  errorCode: "storage_full" | "storage_error";
}

const INDEX_FAULTS: IndexFault[] = [
  { code: "SQLITE_FULL", status: 507, errorCode: "storage_full" },
  { code: "SQLITE_IOERR_WRITE", status: 503, errorCode: "storage_error" },
];

async function start(): Promise<void> {
  faults = new HeldWritesFs();
  harness = await startHarness({}, undefined, { fs: faults });
}

async function idleConversation(text = "hello"): Promise<{ id: string; rootSessionId: string }> {
  const created = await harness.runtime.createConversation({ text });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return { id: created.conversation.id, rootSessionId: created.conversation.rootSessionId };
}

/** The rejection answers as the API would: the fault's status with `{error: {code, message}}`. */
async function expectAnswer(promise: Promise<unknown>, fault: IndexFault): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${fault.errorCode}, the call succeeded`);
    },
    (caught: unknown) => caught,
  );
  const response = errorResponse(error);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect({ status: response.status, code: body.error.code }).toEqual({ status: fault.status, code: fault.errorCode });
  return body.error.message;
}

function sessionFile(conversationId: string, sessionId: string): string {
  return fs.readFileSync(path.join(harness.home, "conversations", conversationId, `${sessionId}.jsonl`), "utf8");
}

/** The message as the index holds it (not the owner's memory). */
function indexedTexts(sessionId: string): Array<string | null | undefined> {
  return listItems(harness.runtime.store.index, sessionId, 0, 500).items.map((item) => item.text);
}

describe.each(INDEX_FAULTS)("$code on the index", (fault) => {
  it("a message whose turn loop started at its flush: the request carries it, and clients hear of it once, then of its turn", async () => {
    await start();
    const { id } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    const before = harness.log.length;
    await expectAnswer(harness.runtime.sendMessage(id, { text: "kept on disk [[stream:2]]", mode: "auto" }), fault);
    const turnId = harness.runtime.actor(id).root.items.find((item) => item.text === "kept on disk [[stream:2]]")!.turnId!;
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    const told = harness.log
      .slice(before)
      .filter(({ event }) => ("turnId" in event && event.turnId === turnId) || ("item" in event && event.item.turnId === turnId))
      .map(({ event }) => ("item" in event ? `${event.type}:${event.item.kind}` : event.type));
    expect(told.slice(0, 2)).toEqual(["item.created:user_message", "turn.started"]);
    expect(told.filter((type) => type === "item.created:user_message" || type === "turn.started")).toHaveLength(2);
    expect(told.at(-1)).toBe("turn.ended");
    const answer = harness.runtime.actor(id).root.items.find((item) => item.turnId === turnId && item.kind === "assistant_message")!;
    expect(answer.text).toContain("kept on disk");
    await waitUntil(() => !harness.runtime.store.catchUp.isStale(id), "the index to catch up from the files");
    expectReindexEqualsLive(harness);
  });

  it("a message: the send answers with the fault, the record stays in its file, and the index catches up from it", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    const message = await expectAnswer(harness.runtime.sendMessage(id, { text: "kept on disk", mode: "auto" }), fault);
    expect(message).toContain(fault.code);
    expect(faults.fired).toBe(1);
    expect(sessionFile(id, rootSessionId)).toContain("kept on disk");

    // The owner folded the record as it went to disk: its state is the files', whatever the index did.
    expect(harness.runtime.actor(id).root.items.some((item) => item.text === "kept on disk")).toBe(true);
    await waitUntil(() => indexedTexts(rootSessionId).includes("kept on disk"), "the index to catch up from the files");
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the message's turn, recorded while the index failed, to end");
    expect(harness.runtime.store.catchUp.isStale(id)).toBe(false);
    expectReindexEqualsLive(harness);
    await expectTakesNewMessage(harness, id);
    expectAllConsistent(harness);
  });

  it("two conversations whose records flush in the same tick, one refused: the other is indexed, the refused one catches up from its files", async () => {
    await start();
    const a = await idleConversation("a");
    const b = await idleConversation("b");
    const held = faults.hold([a.rootSessionId, b.rootSessionId]);
    const sends = [a, b].map((conversation) => harness.runtime.sendMessage(conversation.id, { text: `same tick ${conversation.id}`, mode: "auto" }));
    await held;
    // Both messages are on disk; their index updates come in one batch, and the first of them is refused.
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    faults.release();
    const outcomes = await Promise.allSettled(sends);
    expect(faults.fired).toBe(1);
    const refusedAt = outcomes.findIndex((outcome) => outcome.status === "rejected");
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled"), "one send succeeded").toHaveLength(1);
    const [refused, indexed] = refusedAt === 0 ? [a, b] : [b, a];
    await expectAnswer(sends[refusedAt], fault);
    expect(indexedTexts(indexed.rootSessionId), "indexed in the batch the other failed in").toContain(`same tick ${indexed.id}`);
    expect(harness.runtime.store.catchUp.isStale(indexed.id)).toBe(false);
    expect(sessionFile(refused.id, refused.rootSessionId)).toContain(`same tick ${refused.id}`);

    await waitUntil(() => indexedTexts(refused.rootSessionId).includes(`same tick ${refused.id}`), "the refused conversation to catch up from its files");
    for (const conversation of [a, b]) await waitUntil(() => !harness.runtime.actor(conversation.id).hasOpenTurn(), "the turns to end");
    expectReindexEqualsLive(harness);
    expectAllConsistent(harness);
  });

  it("an index that stays broken: every write answers with the fault, and the first write after it clears brings them all in", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    const other = await idleConversation("another conversation");
    faults.inject({ operation: "index", code: fault.code });
    await expectAnswer(harness.runtime.sendMessage(id, { text: "first while broken", mode: "auto" }), fault);
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the turn of the message recorded while broken to end");
    await expectAnswer(harness.runtime.updateConversation(id, { title: "renamed while broken" }), fault);
    await expectAnswer(harness.runtime.sendMessage(other.id, { text: "elsewhere while broken", mode: "auto" }), fault);
    expect(harness.runtime.store.catchUp.isStale(id)).toBe(true);
    faults.clear();

    const sent = await harness.runtime.sendMessage(id, { text: "after it cleared", mode: "auto" });
    expect(harness.runtime.store.catchUp.isStale(id)).toBe(false);
    await harness.turnEnded(id, sent.turn!.id);
    expect(indexedTexts(rootSessionId)).toEqual(expect.arrayContaining(["first while broken", "after it cleared"]));
    expect(harness.runtime.getConversation(id).title).toBe("renamed while broken");
    expect(harness.items(id).map((item) => item.text)).toEqual(expect.arrayContaining(["first while broken", "after it cleared"]));

    await waitUntil(() => !harness.runtime.store.catchUp.isStale(other.id), "the retry timer to catch the other conversation up");
    expect(indexedTexts(other.rootSessionId)).toContain("elsewhere while broken");
    await expectTakesNewMessage(harness, other.id);
    expectAllConsistent(harness);
  });

  it("a record the index refused is the owner's whole: the message has its seq, and an approve decided then runs the call", async () => {
    await start();
    const { id } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    await expectAnswer(harness.runtime.sendMessage(id, { text: "seq kept", mode: "auto" }), fault);
    const owned = harness.runtime.actor(id).root.items.find((item) => item.text === "seq kept");
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the message's turn to end");
    const indexed = listItems(harness.runtime.store.index, owned!.sessionId, 0, 500).items.find((item) => item.id === owned!.id);
    expect(owned!.seq, "the owner's item carries its record's seq").toBe(indexed!.seq);

    const command = "touch approved.marker";
    const asked = await harness.runtime.sendMessage(id, { text: `[[tool:shell ${JSON.stringify({ command })}]]`, mode: "auto" });
    const requested = await harness.waitForEvent(id, "approval.requested");
    await harness.waitForEvent(id, "turn.updated", (event) => event.turn.status === "waiting_approval");
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    await expectAnswer(harness.runtime.decideApproval(requested.approval.id, "approve"), fault);
    expect(harness.runtime.actor(id).approval(requested.approval.id)?.status, "the owner holds the decision it recorded").toBe("approved");
    await harness.turnEnded(id, asked.turn!.id);
    const call = harness.runtime.actor(id).root.items.find((item) => item.id === requested.approval.itemId);
    expect(call?.status, "the approved call ran").toBe("completed");
    expect(fs.existsSync(path.join(harness.cwd, "approved.marker"))).toBe(true);
    expectAllConsistent(harness);
  });

  it("a keyed send retried after the fault answers as the first time: one message, one turn", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code, times: 1 });
    const body = { text: "sent once", mode: "auto" as const, requestKey: "retry-after-index-fault" };
    await expectAnswer(harness.runtime.sendMessage(id, body), fault);
    const retried = await harness.runtime.sendMessage(id, body);
    await harness.turnEnded(id, retried.turn!.id);
    const sent = harness.items(id).filter((item) => item.kind === "user_message" && item.text === "sent once");
    expect(sent.map((item) => item.id), "the user's message, once").toEqual([retried.message.id]);
    expect(harness.runtime.listTurns(id).filter((turn) => turn.inputMessageIds.includes(retried.message.id))).toHaveLength(1);
    expect(indexedTexts(rootSessionId).filter((text) => text === "sent once")).toHaveLength(1);
    expectAllConsistent(harness);
  });

  it("a keyed send retried while the index still fails answers the fault again and records nothing more", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code });
    const body = { text: "not twice", mode: "auto" as const, requestKey: "retry-while-broken" };
    await expectAnswer(harness.runtime.sendMessage(id, body), fault);
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the first attempt's turn to end");
    await expectAnswer(harness.runtime.sendMessage(id, body), fault);
    const onDisk = sessionFile(id, rootSessionId).split("\n").filter((line) => line.includes('"text":"not twice"'));
    expect(onDisk, "item.created lines of the message").toHaveLength(1);
    faults.clear();
    const retried = await harness.runtime.sendMessage(id, body);
    expect(retried.turn, "the retry replays the first answer: the turn that already ran").not.toBeNull();
    expect(harness.items(id).filter((item) => item.text === "not twice")).toHaveLength(1);
    expectAllConsistent(harness);
  });

  it("a restart before the index caught up re-ingests the conversation from its files", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    faults.inject({ operation: "index", code: fault.code });
    await expectAnswer(harness.runtime.sendMessage(id, { text: "across a restart", mode: "auto" }), fault);
    expect(harness.runtime.store.catchUp.isStale(id)).toBe(true);
    faults.clear();
    await harness.restart();
    expect(indexedTexts(rootSessionId)).toContain("across a restart");
    expect(harness.items(id).map((item) => item.text)).toContain("across a restart");
    await expectTakesNewMessage(harness, id);
    expectAllConsistent(harness);
  });

  it("deleting: a tombstone the index refuses still deletes the conversation, and the index lets it go", async () => {
    await start();
    const { id } = await idleConversation();
    const kept = await idleConversation("kept");
    faults.inject({ operation: "index", code: fault.code, times: 2 });
    await harness.runtime.deleteConversation(id);
    expect(fs.existsSync(path.join(harness.home, "conversations", id))).toBe(false);
    await waitUntil(() => !harness.runtime.store.catchUp.isStale(id), "the index to drop the deleted conversation");
    expect((await harness.runtime.listConversations({ archived: "all", offset: 0, limit: 100 })).conversations.map((conversation) => conversation.id)).toEqual([kept.id]);
    expectAllConsistent(harness);
  });
});
