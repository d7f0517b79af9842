import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationEvent } from "@/lib/events/events";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";
import { expectAllConsistent, expectStorageAnswer, expectTakesNewMessage, FAULTS, type FaultCase } from "./consistency";

/**
 * DESIGN §2 storage faults, for every record type the engine writes: the request that hits
 * the fault answers 507/503 with nothing half-written, a turn that hits it ends failed with the
 * code, nothing acknowledged is lost, and the conversation carries on once the fault clears.
 */
let harness: Harness;
let faults: FaultyStorageFs;
afterEach(async () => harness?.close());

const ALL = { archived: "all", offset: 0, limit: 100 } as const;
const SMALL = { models: [{ id: "small", provider: "offline", contextWindow: 6000, maxOutputTokens: 500 }], defaultModel: "small" };

async function start(config: Record<string, unknown> = {}): Promise<void> {
  faults = new FaultyStorageFs();
  harness = await startHarness(config, undefined, { fs: faults });
}

async function idleConversation(text = "hello", cwd?: string): Promise<{ id: string; rootSessionId: string }> {
  const created = await harness.runtime.createConversation({ text, cwd });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return { id: created.conversation.id, rootSessionId: created.conversation.rootSessionId };
}

function inject(fault: FaultCase, pathIncludes: string, times?: number): void {
  faults.inject({ operation: fault.operation, code: fault.code, pathIncludes, times, partialBytes: fault.operation === "write" ? 11 : undefined });
}

/** Injects the fault the moment an event is published, so it hits the very next write. */
function injectOn(conversationId: string, matches: (event: ConversationEvent) => boolean, inject: () => void): void {
  const unsubscribe = harness.runtime.bus.subscribe(conversationId, ({ event }) => {
    if (!matches(event)) return;
    unsubscribe();
    inject();
  });
}

async function afterFault(conversationId: string): Promise<void> {
  faults.clear();
  await expectTakesNewMessage(harness, conversationId);
  expectAllConsistent(harness);
}

describe.each(FAULTS)("$code on $operation", (fault) => {
  it("message: the send answers with the fault and records nothing of it", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    inject(fault, rootSessionId);
    await expectStorageAnswer(harness.runtime.sendMessage(id, { text: "lost", mode: "auto", requestKey: "k1" }), fault);
    expect(harness.items(id).map((item) => item.text)).not.toContain("lost");
    faults.clear();
    // The key was not remembered with a failed result: the retry performs the send.
    const retried = await harness.runtime.sendMessage(id, { text: "lost", mode: "auto", requestKey: "k1" });
    expect(retried.message.status).toBe("started");
    await harness.turnEnded(id, retried.turn!.id);
    await afterFault(id);
  });

  it("turn.started: the send answers with the fault", async () => {
    await start();
    const { id } = await idleConversation();
    inject(fault, "metadata.jsonl", 1);
    await expectStorageAnswer(harness.runtime.sendMessage(id, { text: "no turn", mode: "auto" }), fault);
    expect(harness.runtime.listTurns(id)).toHaveLength(1);
    await afterFault(id);
  });

  it("queue.added: a message for a running turn answers with the fault and waits nowhere", async () => {
    await start();
    const created = await harness.runtime.createConversation({ text: "slow [[delay:20]] [[stream:30]]" });
    const id = created.conversation.id;
    inject(fault, "metadata.jsonl", 1);
    await expectStorageAnswer(harness.runtime.sendMessage(id, { text: "queued", mode: "queue" }), fault);
    expect(harness.runtime.listWaiting(id)).toEqual([]);
    await harness.turnEnded(id, created.turn.id);
    await afterFault(id);
  });

  it("approval.decided: the decision answers with the fault; the turn stays parked and takes the next decision", async () => {
    await start();
    const created = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo ok" })}]]` });
    const id = created.conversation.id;
    const { approval } = await harness.waitForEvent(id, "approval.requested");
    await harness.waitForEvent(id, "turn.updated", (event) => event.turn.status === "waiting_approval");
    inject(fault, "metadata.jsonl", 1);
    await expectStorageAnswer(harness.runtime.decideApproval(approval.id, "approve"), fault);
    expect(harness.runtime.getTurn(created.turn.id).status).toBe("waiting_approval");
    await harness.runtime.decideApproval(approval.id, "approve");
    expect((await harness.turnEnded(id, created.turn.id)).status).toBe("completed");
    await afterFault(id);
  });

  it("objective.opened: opening answers with the fault and leaves no objective", async () => {
    await start();
    const { id } = await idleConversation();
    inject(fault, "metadata.jsonl", 1);
    await expectStorageAnswer(harness.runtime.openObjective(id, "ship it"), fault);
    expect(harness.runtime.getConversation(id).objective).toBeNull();
    await afterFault(id);
  });

  it("objective.opened, then its notice: opening answers with the fault; the keyed retry starts the first slice the fault stopped", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    // The first slice completes the objective, so the slice having run shows.
    const text = 'ship it [[tool:objective_update {"status":"completed","note":"shipped"}]]';
    inject(fault, rootSessionId, 1);
    await expectStorageAnswer(harness.runtime.openObjective(id, text, "open-1"), fault);
    // The opening itself was recorded (metadata); what follows it in the session file was not.
    expect(harness.runtime.getConversation(id).objective).toMatchObject({ status: "open", slices: 0 });
    faults.clear();
    expect(await harness.runtime.openObjective(id, text, "open-1")).toMatchObject({ status: "open", slices: 1 });
    await waitUntil(() => harness.runtime.getConversation(id).objective?.status === "completed", "the first slice to complete the objective");
    await waitUntil(() => harness.runtime.getConversation(id).status === "idle", "the conversation to be idle");
    await afterFault(id);
  });

  it("objective.opened, then its notice: the keyed retry while the working directory is gone answers missing_cwd and runs nothing; once it is back, the retry starts the slice", async () => {
    await start();
    const cwd = fs.mkdtempSync(path.join(harness.home, "project-"));
    const { id, rootSessionId } = await idleConversation("hello", cwd);
    const text = 'ship it [[tool:objective_update {"status":"completed","note":"shipped"}]]';
    inject(fault, rootSessionId, 1);
    await expectStorageAnswer(harness.runtime.openObjective(id, text, "open-1"), fault);
    faults.clear();
    fs.rmSync(cwd, { recursive: true });
    await expect(harness.runtime.openObjective(id, text, "open-1")).rejects.toMatchObject({ code: "missing_cwd" });
    expect(harness.runtime.getConversation(id).objective).toMatchObject({ status: "open", slices: 0 });
    expect(harness.runtime.listTurns(id)).toHaveLength(1);
    fs.mkdirSync(cwd);
    expect(await harness.runtime.openObjective(id, text, "open-1")).toMatchObject({ status: "open", slices: 1 });
    await waitUntil(() => harness.runtime.getConversation(id).objective?.status === "completed", "the first slice to complete the objective");
    await waitUntil(() => harness.runtime.getConversation(id).status === "idle", "the conversation to be idle");
  });

  it("compaction: manual compaction answers with the fault and records no summary", async () => {
    await start(SMALL);
    const { id, rootSessionId } = await idleConversation("first [[stream:400]]");
    for (let index = 0; index < 4; index += 1) {
      const sent = await harness.runtime.sendMessage(id, { text: `more ${index} [[stream:400]]`, mode: "auto" });
      await harness.turnEnded(id, sent.turn!.id);
    }
    inject(fault, rootSessionId, 1);
    await expectStorageAnswer(harness.runtime.compact(id), fault);
    expect(harness.items(id).some((item) => item.kind === "compaction_summary")).toBe(false);
    expect((await harness.runtime.compact(id)).compacted).toBe(true);
    await afterFault(id);
  });

  it("fork: the fork answers with the fault and leaves no conversation, staged or not", async () => {
    await start();
    const { id } = await idleConversation();
    inject(fault, ".staging-", 1);
    await expectStorageAnswer(harness.runtime.fork(id, { requestKey: "fork-1" }), fault);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(1);
    const forked = await harness.runtime.fork(id, { requestKey: "fork-1" });
    expect(forked.forkedFrom?.conversationId).toBe(id);
    await afterFault(forked.id);
  });

  it("conversation.created: creating answers with the fault; the retried key gets a whole conversation", async () => {
    await start();
    inject(fault, ".staging-", 1);
    await expectStorageAnswer(harness.runtime.createConversation({ text: "new one", requestKey: "create-1" }), fault);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(0);
    const created = await harness.runtime.createConversation({ text: "new one", requestKey: "create-1" });
    expect(created.message.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(created.turn.inputMessageIds).toEqual([created.message.id]);
    await harness.turnEnded(created.conversation.id, created.turn.id);
    await afterFault(created.conversation.id);
  });

  it("conversation.deleted: a disk that takes neither the tombstone nor a rename answers with the fault and keeps the conversation", async () => {
    await start();
    const { id } = await idleConversation();
    inject(fault, "metadata.jsonl");
    faults.inject({ operation: "rename", code: fault.code });
    await expectStorageAnswer(harness.runtime.deleteConversation(id), fault);
    faults.clear();
    expect(harness.runtime.getConversation(id).id).toBe(id);
    await afterFault(id);
    await harness.runtime.deleteConversation(id);
    expect(fs.existsSync(path.join(harness.home, "conversations", id))).toBe(false);
  });

  it("conversation.deleted: a disk too full for the tombstone still lets the conversation go", async () => {
    await start();
    const { id } = await idleConversation();
    const kept = await idleConversation("kept");
    inject(fault, "metadata.jsonl");
    await harness.runtime.deleteConversation(id);
    faults.clear();
    expect(fs.readdirSync(path.join(harness.home, "conversations"))).toEqual([kept.id]);
    await expect(Promise.resolve().then(() => harness.runtime.getConversation(id))).rejects.toMatchObject({ code: "not_found" });
    await afterFault(kept.id);
  });

  for (const record of [
    { name: "item.created", file: "session", trigger: (event: ConversationEvent) => event.type === "turn.started" },
    {
      name: "item.progress",
      file: "session",
      text: `[[tool:list_dir ${JSON.stringify({ path: "." })}]]`,
      trigger: (event: ConversationEvent) => event.type === "item.created" && event.item.kind === "tool_call",
    },
    {
      name: "item.completed",
      file: "session",
      trigger: (event: ConversationEvent) => event.type === "item.created" && event.item.kind === "assistant_message",
    },
    {
      name: "turn.ended",
      file: "metadata.jsonl",
      trigger: (event: ConversationEvent) => event.type === "item.completed" && event.item.kind === "assistant_message",
    },
  ]) {
    it(`${record.name}: the running turn ends failed with ${fault.errorCode} once a write succeeds again`, async () => {
      await start();
      const { id, rootSessionId } = await idleConversation();
      const fired = faults.fired;
      injectOn(id, record.trigger, () => inject(fault, record.file === "session" ? rootSessionId : record.file, 1));
      const sent = await harness.runtime.sendMessage(id, { text: record.text ?? "reply [[stream:5]]", mode: "auto" });
      const turn = await harness.turnEnded(id, sent.turn!.id);
      expect(faults.fired).toBe(fired + 1);
      expect(turn.status).toBe("failed");
      expect(turn.error?.code).toBe(fault.errorCode);
      expect(harness.items(id).filter((item) => item.turnId === turn.id).every((item) => item.status !== "streaming" && item.status !== "waiting")).toBe(true);
      await afterFault(id);
    });
  }
});

describe("objective opened whole", () => {
  it("its keyed retry answers it as it stands even once the working directory is gone (its slice already runs)", async () => {
    await start();
    const cwd = fs.mkdtempSync(path.join(harness.home, "project-"));
    const { id } = await idleConversation("hello", cwd);
    const text = `slice [[tool:shell ${JSON.stringify({ command: "echo parked" })}]]`;
    expect(await harness.runtime.openObjective(id, text, "open-1")).toMatchObject({ status: "open", slices: 1 });
    await harness.waitForEvent(id, "approval.requested");
    fs.rmSync(cwd, { recursive: true });
    expect(await harness.runtime.openObjective(id, text, "open-1")).toMatchObject({ status: "open", slices: 1 });
  });
});

describe("a disk that stays full under a running turn", () => {
  it("keeps the conversation interruptible and deletable, and the turn ends once writes succeed", async () => {
    await start();
    const { id, rootSessionId } = await idleConversation();
    const sent = await harness.runtime.sendMessage(id, { text: "long [[delay:10]] [[stream:200]]", mode: "auto" });
    await harness.waitForEvent(id, "item.created", (event) => event.item.kind === "assistant_message");
    faults.inject({ operation: "write", code: "ENOSPC", pathIncludes: rootSessionId });
    faults.inject({ operation: "write", code: "ENOSPC", pathIncludes: "metadata.jsonl" });
    await waitUntil(() => faults.fired >= 2, "the turn to hit the full disk and fail to record its end");
    const interrupted = await harness.runtime.interrupt(id);
    expect(interrupted?.id).toBe(sent.turn!.id);
    faults.clear();
    const turn = await harness.turnEnded(id, sent.turn!.id);
    expect(turn).toMatchObject({ status: "failed", error: { code: "storage_full" } });
    await afterFault(id);

    const second = await harness.runtime.sendMessage(id, { text: "again [[delay:10]] [[stream:200]]", mode: "auto" });
    await harness.waitForEvent(id, "item.created", (event) => event.item.kind === "assistant_message" && event.turnId === second.turn!.id);
    faults.inject({ operation: "write", code: "ENOSPC", pathIncludes: rootSessionId });
    faults.inject({ operation: "write", code: "ENOSPC", pathIncludes: "metadata.jsonl" });
    const before = faults.fired;
    await waitUntil(() => faults.fired >= before + 2, "the second turn to hit the full disk");
    await harness.runtime.deleteConversation(id);
    faults.clear();
    expect(fs.existsSync(path.join(harness.home, "conversations", id))).toBe(false);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(0);
  });
});
