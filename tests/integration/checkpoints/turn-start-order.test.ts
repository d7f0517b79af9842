import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
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

describe("the turn-start checkpoint", () => {
  it("lets the model request go out while its record's write is still held, and the record lands before the turn's answer and end", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    fs.writeFileSync(path.join(cwd, "notes.txt"), "some notes\n");
    fake = await startFakeOpenAIServer();
    const writes = new HeldWritesFs();
    faults = writes;
    harness = await startHarness(fakeModelConfig(fake.url), undefined, { fs: writes });
    const created = await harness.runtime.createConversation({ text: "first", cwd });
    expect((await harness.turnEnded(created.conversation.id, created.turn.id)).status).toBe("completed");
    const id = created.conversation.id;
    const metadata = path.join(harness.home, "conversations", id, "metadata.jsonl");
    expect(fs.existsSync(metadata)).toBe(true);

    // From the moment the turn's start is on record, the next write of the metadata log is held once it is on disk.
    let held: Promise<void> | null = null;
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
    const sessionLog = path.join(harness.home, "conversations", id, `${created.conversation.rootSessionId}.jsonl`);
    const answerOf = (records: Array<{ type: string; item?: { turnId?: string; kind?: string } }>) =>
      records.findIndex((record) => record.type === "item.created" && record.item?.turnId === turnId && record.item?.kind === "assistant_message");
    // Nothing the turn writes next gets ahead of the record: its answer waits in the owner's queue.
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
});
