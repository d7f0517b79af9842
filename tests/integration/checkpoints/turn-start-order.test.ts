import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { FaultyStorageFs, type StorageFs } from "@/lib/store/storage-fs";
import { HeldWritesFs } from "../../support/held-writes-fs";
import { fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

/**
 * Issue 25: a turn's model request waits for the turn-start snapshot of its files, not for the
 * snapshot's record to be flushed; the record is still written before anything the turn writes
 * after it (its items, its end), so it is on disk before any tool could change a file.
 */
let harness: Harness | undefined;
let fake: FakeOpenAIServer | undefined;
let faults: HeldWritesFs | undefined;
let cwd = "";
afterEach(async () => {
  // A failed run leaves the write held: let it go, or closing would wait for it.
  faults?.release();
  faults = undefined;
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

function lines(file: string): Array<{ type: string; [key: string]: unknown }> {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string });
}

/**
 * A Runtime on `disk` with the fake model, and a conversation in a fresh folder holding notes.txt
 * whose first turn has ended: the turn after it is the one each test watches start.
 */
async function idleConversationInFolder(disk: StorageFs, config: object = {}) {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
  fs.writeFileSync(path.join(cwd, "notes.txt"), "some notes\n");
  fake = await startFakeOpenAIServer();
  const started = await startHarness({ ...fakeModelConfig(fake.url), ...config }, undefined, { fs: disk });
  harness = started;
  const created = await started.runtime.createConversation({ text: "first", cwd });
  expect((await started.turnEnded(created.conversation.id, created.turn.id)).status).toBe("completed");
  return { harness: started, fake, conversation: created.conversation };
}

describe("the turn-start checkpoint", () => {
  it("lets the model request go out while its record's write is still held, and the record lands before the turn's answer and end", async () => {
    const writes = new HeldWritesFs();
    faults = writes;
    const { harness, fake, conversation } = await idleConversationInFolder(writes);
    const id = conversation.id;
    const metadata = path.join(harness.home, "conversations", id, "metadata.jsonl");
    expect(fs.existsSync(metadata)).toBe(true);

    // From the moment the turn's start is on record, the next write of the metadata log is held once it is on disk.
    let held: Promise<void> | null = null;
    // Every command the owner is given, as it is given: the answer's item is one.
    const execute = vi.spyOn(harness.runtime.actor(id), "execute");
    const answerQueued = () =>
      execute.mock.calls.some(([command]) => command.type === "create_item" && command.fields.turnId === turnId && command.fields.kind === "assistant_message");
    const unsubscribe = harness.runtime.bus.subscribe(id, ({ event }) => {
      if (event.type === "turn.started" && held === null) held = writes.hold([path.join(id, "metadata.jsonl")]);
    });
    const sent = await harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    const turnId = sent.turn!.id;
    await waitUntil(() => held !== null, "the turn to start");
    await held;
    unsubscribe();
    // The held write is the turn-start checkpoint's record…
    const last = lines(metadata).at(-1)!;
    expect(last).toMatchObject({ type: "checkpoint", reason: "turn_start", turnId, cwd });
    // …and the model request went out while it was held.
    await waitUntil(() => fake!.requests.some((request) => request.headers["x-atrium-turn-id"] === turnId), "the turn's model request while the checkpoint record is held", 5000);
    const sessionLog = path.join(harness.home, "conversations", id, `${conversation.rootSessionId}.jsonl`);
    const answerOf = (records: Array<{ type: string; item?: { turnId?: string; kind?: string } }>) =>
      records.findIndex((record) => record.type === "item.created" && record.item?.turnId === turnId && record.item?.kind === "assistant_message");
    // The answer arrives and is handed to the owner while the record is still held…
    await waitUntil(answerQueued, "the turn's answer to reach the owner's queue", 5000);
    // …and nothing the turn writes next gets ahead of the record: the answer waits in the queue.
    expect(answerOf(lines(sessionLog))).toBe(-1);

    writes.release();
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    expect(answerOf(lines(sessionLog))).toBeGreaterThanOrEqual(0);
    const records = lines(metadata);
    const checkpointAt = records.findIndex((record) => record.type === "checkpoint" && record.turnId === turnId && record.reason === "turn_start");
    const endAt = records.findIndex((record) => record.type.startsWith("turn.") && record.type !== "turn.started" && record.turnId === turnId);
    expect(checkpointAt).toBeGreaterThanOrEqual(0);
    expect(endAt).toBeGreaterThan(checkpointAt);
  });

  it("holds back a tool that would change a file until the record of the files before it is on disk", async () => {
    const writes = new HeldWritesFs();
    faults = writes;
    const { harness, fake, conversation } = await idleConversationInFolder(writes, { approvals: { write_file: "auto" } });
    const id = conversation.id;
    fake.enqueue({ type: "tool_call", name: "write_file", arguments: { path: "notes.txt", content: "rewritten\n" } }, { type: "text", text: "done" });

    let held: Promise<void> | null = null;
    const unsubscribe = harness.runtime.bus.subscribe(id, ({ event }) => {
      if (event.type === "turn.started" && held === null) held = writes.hold([path.join(id, "metadata.jsonl")]);
    });
    const execute = vi.spyOn(harness.runtime.actor(id), "execute");
    const sent = await harness.runtime.sendMessage(id, { text: "rewrite the notes", mode: "auto" });
    const turnId = sent.turn!.id;
    await waitUntil(() => held !== null, "the turn to start");
    await held;
    unsubscribe();
    expect(lines(path.join(harness.home, "conversations", id, "metadata.jsonl")).at(-1)).toMatchObject({ type: "checkpoint", reason: "turn_start", turnId });
    // The model asked for the write, and the call was handed to the owner, while the record is held…
    await waitUntil(
      () => execute.mock.calls.some(([command]) => command.type === "create_item" && command.fields.turnId === turnId && command.fields.kind === "tool_call"),
      "the write_file call to reach the owner's queue",
      5000,
    );
    // …but the file is as it was: the call waits behind the record.
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("some notes\n");

    writes.release();
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("rewritten\n");
    // The turn's changes are measured from that record: the rewrite shows.
    expect(JSON.stringify(await harness.runtime.turnChanges(turnId))).toContain("rewritten");
  });

  it("ends the turn failed with storage_full when the disk refuses the record, and no tool runs without it", async () => {
    const disk = new FaultyStorageFs();
    const { harness, fake, conversation } = await idleConversationInFolder(disk, { approvals: { write_file: "auto" } });
    const id = conversation.id;
    fake.enqueue({ type: "tool_call", name: "write_file", arguments: { path: "notes.txt", content: "rewritten\n" } }, { type: "text", text: "done" });
    // The turn's start is on record; the next write of the metadata log (its checkpoint) meets a full disk.
    const unsubscribe = harness.runtime.bus.subscribe(id, ({ event }) => {
      if (event.type === "turn.started") disk.inject({ operation: "write", code: "ENOSPC", pathIncludes: path.join(id, "metadata.jsonl"), times: 1 });
    });
    const sent = await harness.runtime.sendMessage(id, { text: "rewrite the notes", mode: "auto" });
    const turn = await harness.turnEnded(id, sent.turn!.id);
    unsubscribe();
    expect(disk.fired).toBe(1);
    expect(turn).toMatchObject({ status: "failed", error: { code: "storage_full" } });
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("some notes\n");
  });
});
