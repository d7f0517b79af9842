import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/** Races the owner closes by being the only writer (issue 22): each of these failed before it. */

let harness: Harness | undefined;
let server: FakeOpenAIServer | undefined;
let cwd: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await server?.close();
  server = undefined;
  if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
  cwd = undefined;
});

function tool(name: string, input: object): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

describe("the owner is the only writer", () => {
  it("a message sent while a rewind restores files waits for the restore, then runs on the restored files", async () => {
    // Checkpoints are not taken of folders inside ATRIUM_HOME: the project lives outside it.
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    harness = await startHarness({ approvals: { write_file: "auto" } });
    const runtime = harness.runtime;
    const file = path.join(cwd, "notes.txt");
    fs.writeFileSync(file, "before\n");
    const created = await runtime.createConversation({ text: "first", cwd });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const second = await runtime.sendMessage(id, { text: `change it ${tool("write_file", { path: "notes.txt", content: "after\n" })}`, mode: "auto" });
    expect((await harness.turnEnded(id, second.turn!.id)).status).toBe("completed");
    expect(fs.readFileSync(file, "utf8")).toBe("after\n");

    // Both in the same tick: the restore is a command of the owner, so the message queues behind it.
    const rewinding = runtime.rewind(id, second.message.id, { restoreFiles: true });
    const sent = await runtime.sendMessage(id, { text: `read it ${tool("read_file", { path: "notes.txt" })}`, mode: "auto" });
    expect(sent.message.status).toBe("queued");
    const rewound = await rewinding;
    expect(rewound.restored).toEqual(["notes.txt"]);
    const [, , third] = await harness.settledTurns(id, 3);
    expect(third.status).toBe("completed");
    const read = runtime.listItems(id, { limit: 100 }).items.find((item) => item.turnId === third.id && item.toolName === "read_file")!;
    expect(read.output).toContain("before");
  });

  it("a message to an idle subagent waits while subagentConcurrencyLimit subagents run, and starts when one ends", async () => {
    harness = await startHarness({ subagentConcurrencyLimit: 1 });
    const runtime = harness.runtime;
    const created = await runtime.createConversation({ text: tool("spawn_agent", { task: "quick one" }) });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const quick = await pollUntil(() => runtime.listSessions(id).find((session) => session.parentSessionId !== null && session.status === "idle"), {
      what: "the first subagent to finish",
    });
    // The report of the first subagent starts a root turn; once everything is idle, spawn a slow second one.
    await pollUntil(() => runtime.listSessions(id).every((session) => session.status === "idle") && runtime.listWaiting(id).length === 0, { what: "all idle" });
    const spawning = await runtime.sendMessage(id, { text: tool("spawn_agent", { task: "slow one [[delay:40]] [[stream:40]]" }), mode: "auto" });
    await harness.turnEnded(id, spawning.turn!.id);
    const slow = runtime.listSessions(id).find((session) => session.parentSessionId !== null && session.id !== quick.id)!;
    expect(slow.status).not.toBe("idle");

    const sent = await runtime.sendMessage(id, { text: "again", mode: "auto", session: quick.id });
    expect(sent.message.status).toBe("queued");
    expect(runtime.listSessions(id).filter((session) => session.parentSessionId !== null && session.status !== "idle")).toHaveLength(1);
    await pollUntil(() => runtime.listTurns(id).filter((turn) => turn.sessionId === quick.id).length === 2, { what: "the waiting message's turn" });
    const slowTurn = runtime.listTurns(id).find((turn) => turn.sessionId === slow.id)!;
    const quickSecond = runtime.listTurns(id).filter((turn) => turn.sessionId === quick.id)[1];
    expect(slowTurn.endedAt).not.toBeNull();
    expect(quickSecond.startedAt >= slowTurn.endedAt!).toBe(true);
  });

  it("an owner whose title call is still running is not dropped from memory (no second owner writes the title)", async () => {
    server = await startFakeOpenAIServer();
    // The first title call hangs; the others answer at once.
    server.setDefault({ type: "text", text: "A short title" });
    server.enqueue({ type: "hang" });
    harness = await startHarness(
      { models: [{ id: "titles", provider: "openai-compatible", baseURL: server.url, model: "fake-model" }], defaultModel: "offline", titleModel: "titles" },
      undefined,
      { maxLoadedOwners: 1 },
    );
    const runtime = harness.runtime;
    const titled = await runtime.createConversation({ text: "a title is on its way" });
    await harness.turnEnded(titled.conversation.id, titled.turn.id);
    await server.waitForRequests(1);
    const owner = runtime.actor(titled.conversation.id);

    const idleOne = await runtime.createConversation({ text: "idle one" });
    await harness.turnEnded(idleOne.conversation.id, idleOne.turn.id);
    // Its title call answers at once: once the title is written, nothing of this owner is in flight.
    await harness.waitForEvent(idleOne.conversation.id, "conversation.updated", (event) => event.conversation.title === "A short title");
    const idleOwner = runtime.actor(idleOne.conversation.id);
    // Idle owners past the limit are dropped (the check can fail)…
    const other = await runtime.createConversation({ text: "another" });
    await harness.turnEnded(other.conversation.id, other.turn.id);
    await pollUntil(() => runtime.loadedOwners <= 2, { what: "the idle owners past the limit to be dropped" });
    expect(runtime.actor(idleOne.conversation.id)).not.toBe(idleOwner);
    // …but not one with work in flight.
    expect(runtime.actor(titled.conversation.id)).toBe(owner);
  });
});
