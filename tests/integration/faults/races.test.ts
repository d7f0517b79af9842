import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { expectReindexEqualsLive, expectWholeLines } from "./consistency";

/**
 * Commands racing on one conversation, each race run ROUNDS times: whichever wins, the outcome
 * is one of the legal ones, every file is whole, the index equals a rebuild and the server restarts.
 */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 50);
const ALL = { archived: "all", offset: 0, limit: 1000 } as const;
const SMALL = { models: [{ id: "small", provider: "offline", contextWindow: 6000, maxOutputTokens: 500 }], defaultModel: "small" };

let harness: Harness;
afterEach(async () => harness?.close());

async function idleConversation(text = "hello"): Promise<{ id: string; rootSessionId: string }> {
  const created = await harness.runtime.createConversation({ text });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return { id: created.conversation.id, rootSessionId: created.conversation.rootSessionId };
}

function codeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === "fulfilled") return "ok";
  if (isAtriumError(result.reason)) return result.reason.code;
  throw result.reason;
}

/** Lets the race start at a different point each round: 0–3 turns of the event loop. */
async function jitter(round: number): Promise<void> {
  for (let index = 0; index < round % 4; index += 1) await new Promise((resolve) => setImmediate(resolve));
}

function exists(id: string): boolean {
  return fs.existsSync(path.join(harness.home, "conversations", id));
}

async function settleAll(): Promise<void> {
  for (const conversation of (await harness.runtime.listConversations(ALL)).conversations) {
    await harness.settledTurns(conversation.id, harness.runtime.listTurns(conversation.id).length);
  }
}

async function expectConsistentAndRestarts(): Promise<void> {
  await settleAll();
  expectWholeLines(harness.home);
  expectReindexEqualsLive(harness);
  const orphans = harness.runtime.store.index.$client
    .prepare(`SELECT count(*) AS n FROM objectives WHERE conversation_id NOT IN (SELECT id FROM conversations)`)
    .get() as { n: number };
  expect(orphans.n).toBe(0);
  await harness.restart();
}

describe(`races, ${ROUNDS} rounds each`, () => {
  it("delete vs open objective: the objective is refused or the delete is; nothing is recreated", async () => {
    harness = await startHarness({ objectiveSliceLimit: 1 });
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const { id } = await idleConversation();
      const [deleted, opened] = await Promise.allSettled([
        jitter(round).then(() => harness.runtime.deleteConversation(id)),
        harness.runtime.openObjective(id, "finish [[stream:2]]"),
      ]);
      const outcome = `${codeOf(deleted)}/${codeOf(opened)}`;
      seen.add(outcome);
      expect(["ok/not_found", "turn_running/ok"]).toContain(outcome);
      expect(exists(id)).toBe(codeOf(deleted) !== "ok");
    }
    expect(seen.size).toBeGreaterThan(0);
    await expectConsistentAndRestarts();
  });

  it("delete vs send: the send is refused or the delete is", async () => {
    harness = await startHarness();
    for (let round = 0; round < ROUNDS; round += 1) {
      const { id } = await idleConversation();
      const [deleted, sent] = await Promise.allSettled([
        jitter(round).then(() => harness.runtime.deleteConversation(id)),
        harness.runtime.sendMessage(id, { text: "hi", mode: "auto" }),
      ]);
      expect(["ok/not_found", "turn_running/ok"]).toContain(`${codeOf(deleted)}/${codeOf(sent)}`);
      expect(exists(id)).toBe(codeOf(deleted) !== "ok");
    }
    await expectConsistentAndRestarts();
  });

  it("delete vs fork: the fork is whole or absent", async () => {
    harness = await startHarness();
    for (let round = 0; round < ROUNDS; round += 1) {
      const { id } = await idleConversation();
      const [deleted, forked] = await Promise.allSettled([
        jitter(round).then(() => harness.runtime.deleteConversation(id)),
        harness.runtime.fork(id, {}),
      ]);
      expect(codeOf(deleted)).toBe("ok");
      expect(["ok", "not_found"]).toContain(codeOf(forked));
      if (forked.status === "fulfilled") expect(harness.runtime.listItems(forked.value.id, {}).items.map((item) => item.text)).toContain("hello");
    }
    await expectConsistentAndRestarts();
  });

  it("interrupt vs tool completion: the call ends completed or interrupted, never left running", async () => {
    harness = await startHarness();
    for (let round = 0; round < ROUNDS; round += 1) {
      const created = await harness.runtime.createConversation({ text: `[[tool:list_dir ${JSON.stringify({ path: "." })}]]` });
      const id = created.conversation.id;
      await harness.waitForEvent(id, "item.created", (event) => event.item.kind === "tool_call");
      await jitter(round);
      await harness.runtime.interrupt(id);
      const turn = await harness.turnEnded(id, created.turn.id);
      expect(["completed", "interrupted"]).toContain(turn.status);
      const call = harness.items(id).find((item) => item.kind === "tool_call")!;
      expect(["completed", "interrupted"]).toContain(call.status);
    }
    await expectConsistentAndRestarts();
    for (const conversation of (await harness.runtime.listConversations(ALL)).conversations) {
      const call = harness.items(conversation.id).find((item) => item.kind === "tool_call")!;
      expect(["completed", "interrupted"]).toContain(call.status);
    }
  });

  it("checkpoint vs completion: no item.progress is written after its item.completed", async () => {
    harness = await startHarness();
    for (let round = 0; round < ROUNDS; round += 1) {
      const created = await harness.runtime.createConversation({ text: `reply [[reason:3]] [[stream:${5 + (round % 7)}]]` });
      const id = created.conversation.id;
      const actor = harness.runtime.actor(id);
      let ended = false;
      const ending = harness.turnEnded(id, created.turn.id).then((turn) => {
        ended = true;
        return turn;
      });
      while (!ended) {
        await actor.checkpointNow().catch(() => undefined);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect((await ending).status).toBe("completed");
      const file = path.join(harness.home, "conversations", id, `${created.conversation.rootSessionId}.jsonl`);
      const records = fs.readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; itemId?: string });
      const completed = new Set<string>();
      for (const record of records) {
        if (record.type === "item.completed") completed.add(record.itemId!);
        if (record.type === "item.progress") expect(completed.has(record.itemId!)).toBe(false);
      }
    }
    await expectConsistentAndRestarts();
    for (const conversation of (await harness.runtime.listConversations(ALL)).conversations) {
      expect(harness.items(conversation.id).every((item) => item.status === "completed")).toBe(true);
    }
  });

  it("compaction vs interrupt: the compaction finishes or stops, never holds the conversation", async () => {
    harness = await startHarness(SMALL);
    let id = "";
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      // A fresh conversation every 10 rounds: the offline model's cumulative summaries outgrow its small window after ~15.
      if (round % 10 === 0) id = (await idleConversation("first [[stream:300]]")).id;
      const sent = await harness.runtime.sendMessage(id, { text: `round ${round} [[stream:300]]`, mode: "auto" });
      await harness.turnEnded(id, sent.turn!.id);
      const [compacted, interrupted] = await Promise.allSettled([
        harness.runtime.compact(id),
        jitter(round).then(() => harness.runtime.interrupt(id)),
      ]);
      expect(codeOf(interrupted)).toBe("ok");
      expect(codeOf(compacted)).toBe("ok");
      const outcome = (compacted as PromiseFulfilledResult<{ compacted: boolean; reason?: string }>).value;
      outcomes.add(outcome.compacted ? "compacted" : (outcome.reason ?? ""));
    }
    const legal = ["compacted", "the owner interrupted the compaction", "nothing is older than the part of the history that is always kept"];
    expect([...outcomes].filter((outcome) => !legal.includes(outcome))).toEqual([]);
    expect(outcomes.has("compacted")).toBe(true);
    const next = await harness.runtime.sendMessage(id, { text: "after", mode: "auto" });
    const after = await harness.turnEnded(id, next.turn!.id);
    expect({ status: after.status, error: after.error }).toEqual({ status: "completed", error: null });
    await expectConsistentAndRestarts();
  });

  it("rewind vs running turn: the new conversation holds what came before the message, nothing of the running turn", async () => {
    harness = await startHarness();
    for (let round = 0; round < ROUNDS; round += 1) {
      const { id } = await idleConversation("first question");
      const second = await harness.runtime.sendMessage(id, { text: "second [[stream:3]]", mode: "auto" });
      const first = harness.items(id)[0];
      const [rewound] = await Promise.allSettled([
        jitter(round).then(() => harness.runtime.rewind(id, first.id)),
        harness.runtime.sendMessage(id, { text: "third", mode: "queue" }),
      ]);
      expect(codeOf(rewound)).toBe("ok");
      const value = (rewound as PromiseFulfilledResult<{ conversation: { id: string }; draft: string }>).value;
      expect(value.draft).toBe("first question");
      expect(harness.runtime.listItems(value.conversation.id, {}).items).toEqual([]);
      await harness.turnEnded(id, second.turn!.id);
    }
    await expectConsistentAndRestarts();
  });
});
