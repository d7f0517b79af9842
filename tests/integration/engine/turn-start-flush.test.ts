import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { OpenAICompatibleStreamModel } from "@/lib/models/openai-compatible/stream-model";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { fakeModelConfig, startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";
import type { ConversationEvent, Delivered } from "@/lib/events/events";

/**
 * Issue 25: a new turn's model request goes out while its `turn.started` is being flushed, not
 * after. The send is still answered only once that record is on disk, clients hear of the turn
 * only then, and everything the turn writes (its answer, its end) lands after it. A start the
 * disk refuses fails the send and leaves nothing of the turn behind, though its request went out.
 * Nor does the request wait for the message's index update: it is made once the message is flushed.
 */

/** The next write of a file whose path contains `pathIncludes` waits for `release`, then writes and fails (ENOSPC) or succeeds. */
class GatedWriteFs extends FaultyStorageFs {
  private gate: { pathIncludes: string; opened: Promise<void>; arrived: () => void; refuse: boolean } | null = null;
  private openGate: () => void = () => undefined;

  /** Resolves once the gated write has arrived and waits. */
  gateNext(pathIncludes: string, refuse: boolean): Promise<void> {
    const opened = new Promise<void>((resolve) => (this.openGate = resolve));
    return new Promise<void>((arrived) => (this.gate = { pathIncludes, opened, arrived, refuse }));
  }

  release(): void {
    this.openGate();
  }

  override async write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    const gate = this.gate && filePath.includes(this.gate.pathIncludes) ? this.gate : null;
    if (gate) {
      this.gate = null;
      gate.arrived();
      await gate.opened;
      if (gate.refuse) this.inject({ operation: "write", code: "ENOSPC", pathIncludes: gate.pathIncludes, times: 1 });
    }
    return super.write(handle, filePath, chunk, offset, length);
  }
}

let harness: Harness | undefined;
let fake: FakeOpenAIServer | undefined;
let disk: GatedWriteFs | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  disk?.release();
  disk = undefined;
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

function lines(file: string): Array<{ type: string; turnId?: string; item?: { turnId?: string; kind?: string } }> {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string });
}

/** A conversation whose first turn has ended, on a disk whose writes the test can hold. */
async function idleConversation() {
  disk = new GatedWriteFs();
  fake = await startFakeOpenAIServer();
  harness = await startHarness(fakeModelConfig(fake.url), undefined, { fs: disk });
  const created = await harness.runtime.createConversation({ text: "first" });
  expect((await harness.turnEnded(created.conversation.id, created.turn.id)).status).toBe("completed");
  const id = created.conversation.id;
  const directory = path.join(harness.home, "conversations", id);
  return {
    id,
    harness,
    fake,
    disk,
    metadata: path.join(directory, "metadata.jsonl"),
    sessionLog: path.join(directory, `${created.conversation.rootSessionId}.jsonl`),
  };
}

/** The turn id the newest model request was made for. */
function requestedTurn(fake: FakeOpenAIServer, after: number): string | null {
  const request = fake.requests.slice(after).find((candidate) => candidate.headers["x-atrium-turn-id"]);
  return request ? String(request.headers["x-atrium-turn-id"]) : null;
}

describe("a turn's start record", () => {
  it("is flushed while the model request is out; the send, the turn's event, its answer and its end all wait for it", async () => {
    const { id, harness, fake, disk, metadata, sessionLog } = await idleConversation();
    const requestsBefore = fake.requests.length;
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), false);
    let answered = false;
    const sending = harness.runtime.sendMessage(id, { text: "second", mode: "auto" }).then((outcome) => {
      answered = true;
      return outcome;
    });
    const turnsBefore = lines(metadata).filter((record) => record.type === "turn.started").length;
    await arrived;
    // The held write is the turn's start (the message is on disk before it)…
    expect(lines(sessionLog).some((record) => record.type === "item.created" && record.item?.kind === "user_message" && JSON.stringify(record).includes("second"))).toBe(true);
    expect(lines(metadata).filter((record) => record.type === "turn.started")).toHaveLength(turnsBefore);
    // …and the model request for that turn went out while it was held.
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    const turnId = requestedTurn(fake, requestsBefore)!;
    // Nothing of the turn is answered, written or told yet, nor shown to a reader or a new live client.
    expect(answered).toBe(false);
    expect(harness.runtime.actor(id).runningTurns()).toEqual([]);
    expect(harness.runtime.actor(id).liveItems()).toEqual([]);
    expect(harness.runtime.listSessions(id).map((session) => session.status)).toEqual(["idle"]);
    expect(harness.events(id, "turn.started").some((event) => event.turnId === turnId)).toBe(false);
    expect(lines(sessionLog).some((record) => record.type === "item.created" && record.item?.turnId === turnId && record.item.kind === "assistant_message")).toBe(false);

    disk.release();
    const sent = await sending;
    expect(sent).toMatchObject({ message: { status: "started" }, turn: { id: turnId, status: "running" } });
    const started = harness.events(id, "turn.started").find((event) => event.turnId === turnId)!;
    const records = lines(metadata);
    const startRecord = records.find((record) => record.type === "turn.started" && record.turnId === turnId) as { at: string } | undefined;
    // The turn as answered and told carries its record's own time.
    expect(sent.turn!.startedAt).toBe(startRecord!.at);
    expect(started.turn.startedAt).toBe(startRecord!.at);
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    expect(lines(sessionLog).some((record) => record.type === "item.created" && record.item?.turnId === turnId && record.item.kind === "assistant_message")).toBe(true);
    const after = lines(metadata);
    expect(after.findIndex((record) => record.type === "turn.ended" && record.turnId === turnId)).toBeGreaterThan(after.findIndex((record) => record.type === "turn.started" && record.turnId === turnId));
  });

  it("is made once the message is flushed, before the message is indexed and told; the message's event still comes first", async () => {
    const { id, harness, sessionLog } = await idleConversation();
    const seen: Array<{ onDisk: boolean; told: boolean; inRequest: boolean }> = [];
    const doStream = OpenAICompatibleStreamModel.prototype.doStream;
    vi.spyOn(OpenAICompatibleStreamModel.prototype, "doStream").mockImplementation(function (this: OpenAICompatibleStreamModel, options) {
      seen.push({
        onDisk: lines(sessionLog).some((record) => record.type === "item.created" && record.item?.kind === "user_message" && JSON.stringify(record).includes("second")),
        told: harness.events(id, "item.created").some((event) => event.item.kind === "user_message" && event.item.text === "second"),
        inRequest: JSON.stringify(options.prompt).includes("second"),
      });
      return doStream.call(this, options);
    });
    const sent = await harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    expect(seen).toEqual([{ onDisk: true, told: false, inRequest: true }]);
    // Clients still hear of the message, then of the turn, then of its answer.
    const types = harness.log
      .filter(({ event }) => ("turnId" in event && event.turnId === sent.turn!.id) || ("item" in event && event.item.turnId === sent.turn!.id))
      .map(({ event }) => ("item" in event ? `${event.type}:${event.item.kind}` : event.type));
    expect((await harness.turnEnded(id, sent.turn!.id)).status).toBe("completed");
    expect(types.slice(0, 2)).toEqual(["item.created:user_message", "turn.started"]);
  });

  it("a client joining between the message's flush and its index update gets a snapshot without the turn, then each event of it once, in order", async () => {
    const { id, harness, sessionLog } = await idleConversation();
    const writer = harness.runtime.store.writer;
    const applySession = writer.applySession.bind(writer);
    let joined: Array<Delivered<ConversationEvent>> | null = null;
    let unsubscribe = () => {};
    vi.spyOn(writer, "applySession").mockImplementation((conversationId, sessionId, record, endOffset) => {
      if (!joined && record.type === "item.created" && record.item.kind === "user_message" && record.item.text === "second") {
        // The message is on disk, its turn's loop runs, neither is indexed or told: a client joins now.
        expect(lines(sessionLog).some((line) => line.type === "item.created" && JSON.stringify(line).includes("second"))).toBe(true);
        expect(harness.runtime.actor(id).root.runner).not.toBeNull();
        const received: Array<Delivered<ConversationEvent>> = [];
        joined = received;
        unsubscribe = harness.runtime.subscribe(id, {}, (delivered) => received.push(delivered));
      }
      applySession(conversationId, sessionId, record, endOffset);
    });
    const sent = await harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    const turnId = sent.turn!.id;
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    unsubscribe();
    const events = joined!.map(({ event }) => event);
    expect(events[0]).toMatchObject({ type: "snapshot", items: [], turns: [] });
    const ofTurn = events
      .filter((event) => ("turnId" in event && event.turnId === turnId) || ("item" in event && event.item.turnId === turnId))
      .map((event) => ("item" in event ? `${event.type}:${event.item.kind}` : event.type));
    expect(ofTurn.slice(0, 2)).toEqual(["item.created:user_message", "turn.started"]);
    expect(ofTurn.filter((type) => type === "item.created:user_message")).toHaveLength(1);
    expect(ofTurn.filter((type) => type === "turn.started")).toHaveLength(1);
    expect(ofTurn.at(-1)).toBe("turn.ended");
    const ids = joined!.map((delivered) => delivered.id);
    expect(ids.slice(1)).toEqual([...new Set(ids.slice(1))].sort((a, b) => a - b));
  });

  it("held: a model error that is retried is told only after the turn's start (turn.retrying never comes before turn.started)", async () => {
    const { id, harness, fake, disk } = await idleConversation();
    fake.enqueue({ type: "error", status: 503, message: "busy" }, { type: "text", text: "after the retry" });
    let failed = false;
    const doStream = OpenAICompatibleStreamModel.prototype.doStream;
    vi.spyOn(OpenAICompatibleStreamModel.prototype, "doStream").mockImplementation(function (this: OpenAICompatibleStreamModel, options) {
      const streaming = doStream.call(this, options);
      streaming.catch(() => (failed = true));
      return streaming;
    });
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), false);
    const sending = harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    await arrived;
    // The 503 is back and handled (its rejection's handlers ran) while turn.started is held: nothing is told of a retry yet.
    await waitUntil(() => failed, "the model's 503 while turn.started is held", 5000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(harness.events(id, "turn.retrying")).toEqual([]);

    disk.release();
    const sent = await sending;
    expect((await harness.turnEnded(id, sent.turn!.id)).status).toBe("completed");
    const types = harness.log.filter(({ event }) => "turnId" in event && event.turnId === sent.turn!.id).map(({ event }) => event.type);
    expect(types.indexOf("turn.started")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("turn.retrying")).toBeGreaterThan(types.indexOf("turn.started"));
  });

  it("held: a model step that ends before the turn's start is on disk tells the context figure only after turn.started", async () => {
    const { id, harness, fake, disk } = await idleConversation();
    // An answer with no text: the step writes no item (which would queue behind the start) and is over at once.
    fake.enqueue({ type: "text", text: "" });
    const requestsBefore = fake.requests.length;
    const contextsBefore = harness.events(id, "context.updated").length;
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), false);
    const sending = harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    await arrived;
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    const turnId = requestedTurn(fake, requestsBefore)!;
    // The step is over and its usage reported (that report waits for the start): nothing of the turn is told yet.
    await waitUntil(() => harness.runtime.actor(id).root.runner?.closing === true, "the turn loop to end while turn.started is held", 5000);
    expect(harness.events(id, "context.updated")).toHaveLength(contextsBefore);

    disk.release();
    const sent = await sending;
    expect(sent.turn!.id).toBe(turnId);
    expect((await harness.turnEnded(id, turnId)).status).toBe("completed");
    const types = harness.log.slice().map(({ event }) => event.type);
    const started = harness.log.findIndex(({ event }) => event.type === "turn.started" && "turnId" in event && event.turnId === turnId);
    expect(started).toBeGreaterThanOrEqual(0);
    expect(types.slice(0, started).filter((type) => type === "context.updated")).toHaveLength(contextsBefore);
  });

  it("a model step that ends before the refused start is on disk tells no context figure for the turn that never was", async () => {
    const { id, harness, fake, disk } = await idleConversation();
    fake.enqueue({ type: "text", text: "" });
    const requestsBefore = fake.requests.length;
    const contextsBefore = harness.events(id, "context.updated").length;
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), true);
    const outcome = harness.runtime.sendMessage(id, { text: "second", mode: "auto" }).then(
      () => "answered",
      (error: unknown) => error,
    );
    await arrived;
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    await waitUntil(() => harness.runtime.actor(id).root.runner?.closing === true, "the turn loop to end while turn.started is held", 5000);
    disk.release();
    expect(await outcome).toMatchObject({ code: "storage_full" });
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the dropped turn to leave the session", 5000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(harness.events(id, "context.updated")).toHaveLength(contextsBefore);
  });

  it("held: a steer and a jump sent meanwhile wait for the start and then act on the new turn, in order", async () => {
    const { id, harness, fake, disk } = await idleConversation();
    fake.enqueue({ type: "hang" });
    const requestsBefore = fake.requests.length;
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), false);
    const sending = harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    await arrived;
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    const turnId = requestedTurn(fake, requestsBefore)!;
    const steering = harness.runtime.sendMessage(id, { text: "steered", mode: "steer" });
    const jumping = harness.runtime.sendMessage(id, { text: "jumped", mode: "jump" });
    let settled = 0;
    void steering.then(() => (settled += 1));
    void jumping.then(() => (settled += 1));
    await new Promise((resolve) => setImmediate(resolve));
    // Both are commands of the owner: they wait behind the start, and the turn loop still runs.
    expect(settled).toBe(0);
    expect(harness.runtime.actor(id).root.runner?.turn.id).toBe(turnId);

    disk.release();
    expect((await sending).turn!.id).toBe(turnId);
    expect(await steering).toMatchObject({ message: { status: "steered" }, turn: { id: turnId } });
    expect((await jumping).message.status).toBe("jumped");
    const ended = await harness.turnEnded(id, turnId);
    expect(ended.status).toBe("interrupted");
    // The jump runs next; the steer the interrupted turn never read becomes the turn after it
    // (jumps go first, DESIGN §3 inbox). The two may start within one poll of each other.
    const later = () => harness.events(id, "turn.started").filter((event) => event.turnId !== turnId).slice(1);
    await waitUntil(() => later().length >= 2, "the jump's turn and then the steer's turn to start", 5000);
    const [next, after] = later();
    expect((await harness.turnEnded(id, next.turnId!)).status).toBe("completed");
    expect((await harness.turnEnded(id, after.turnId!)).status).toBe("completed");
    const of = (turn: string) =>
      harness.log
        .filter(({ event }) => ("turnId" in event && event.turnId === turn) || ("item" in event && event.item.turnId === turn))
        .map(({ event }) => ("item" in event ? `${event.type}:${event.item.kind}` : event.type));
    expect(of(turnId).slice(0, 2)).toEqual(["item.created:user_message", "turn.started"]);
    expect(of(turnId).at(-1)).toBe("turn.ended");
    expect(of(turnId).filter((type) => type === "turn.started")).toHaveLength(1);
    // The interrupted turn's end is told before anything of the next one.
    const at = (where: (event: ConversationEvent) => boolean) => harness.log.findIndex(({ event }) => where(event));
    expect(at((event) => event.type === "turn.ended" && event.turnId === turnId)).toBeLessThan(
      at((event) => ("turnId" in event && event.turnId === next.turnId) || ("item" in event && event.item.turnId === next.turnId)),
    );
    const texts = (turn: string) =>
      harness.runtime.actor(id).root.items.filter((item) => item.turnId === turn && item.kind === "user_message").map((item) => item.text);
    expect(texts(next.turnId!)).toEqual(["jumped"]);
    expect(texts(after.turnId!)).toEqual(["steered"]);
    expect(later()).toHaveLength(2);
  });

  it("refused by the disk fails the send with storage_full; the turn whose model request already went out writes nothing, and the next message runs", async () => {
    const { id, harness, fake, disk, metadata, sessionLog } = await idleConversation();
    const requestsBefore = fake.requests.length;
    const metadataBefore = fs.readFileSync(metadata, "utf8");
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), true);
    const sending = harness.runtime.sendMessage(id, { text: "second", mode: "auto" });
    const outcome = sending.then(
      () => "answered",
      (error: unknown) => error,
    );
    await arrived;
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    const turnId = requestedTurn(fake, requestsBefore)!;

    disk.release();
    expect(await outcome).toMatchObject({ code: "storage_full" });
    expect(disk.fired).toBe(1);
    // Nothing of the turn is on disk or was told, and the conversation runs no turn.
    expect(fs.readFileSync(metadata, "utf8")).toBe(metadataBefore);
    await waitUntil(() => !harness.runtime.actor(id).hasOpenTurn(), "the dropped turn to leave the session", 5000);
    // Only the message itself, flushed before the start was tried, carries the turn's id.
    expect(lines(sessionLog).filter((record) => record.item?.turnId === turnId).map((record) => record.item?.kind)).toEqual(["user_message"]);
    expect(harness.log.filter(({ event }) => "turnId" in event && event.turnId === turnId).map(({ event }) => event.type)).toEqual(["item.created"]);

    const next = await harness.runtime.sendMessage(id, { text: "third", mode: "auto" });
    expect(next.message.status).toBe("started");
    expect((await harness.turnEnded(id, next.turn!.id)).status).toBe("completed");
  });

  it("refused by the disk makes the owner refuse every write sent for that turn, whichever path sends it", async () => {
    const { id, harness, fake, disk, metadata, sessionLog } = await idleConversation();
    const requestsBefore = fake.requests.length;
    const arrived = disk.gateNext(path.join(id, "metadata.jsonl"), true);
    const outcome = harness.runtime.sendMessage(id, { text: "second", mode: "auto" }).then(
      () => "answered",
      (error: unknown) => error,
    );
    await arrived;
    await waitUntil(() => requestedTurn(fake, requestsBefore) !== null, "the new turn's model request while turn.started is held", 5000);
    const turnId = requestedTurn(fake, requestsBefore)!;
    // Writes for the turn sent straight to the owner, past the turn loop, while its start is held: they queue behind it.
    const owner = harness.runtime.actor(id);
    const session = owner.root;
    const item = owner.createItem(session, { turnId, kind: "notice", status: "completed", text: "written for a turn that never was" }).then(
      () => "written",
      (error: unknown) => error,
    );
    const checkpoint = owner.recordCheckpoint({ turnId, itemId: null, cwd: harness.home, tree: "0".repeat(40), reason: "turn_start" }).then(
      () => "written",
      (error: unknown) => error,
    );
    const metadataBefore = fs.readFileSync(metadata, "utf8");

    disk.release();
    expect(await outcome).toMatchObject({ code: "storage_full" });
    expect(await item).toMatchObject({ name: "UnrecordedTurnError", turnId });
    expect(await checkpoint).toMatchObject({ name: "UnrecordedTurnError", turnId });
    expect(fs.readFileSync(metadata, "utf8")).toBe(metadataBefore);
    expect(lines(sessionLog).filter((record) => record.item?.turnId === turnId).map((record) => record.item?.kind)).toEqual(["user_message"]);
    // Writes for other turns, and for none, go on.
    const next = await harness.runtime.sendMessage(id, { text: "third", mode: "auto" });
    expect((await harness.turnEnded(id, next.turn!.id)).status).toBe("completed");
  });
});
