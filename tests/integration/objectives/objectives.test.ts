import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

async function startConversation() {
  const created = await harness.runtime.createConversation({ text: "hello" });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return created.conversation.id;
}

const objectiveOf = (id: string) => harness.runtime.getConversation(id).objective!;
const sliceInputs = (id: string) =>
  harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.kind === "user_message" && item.origin === "objective");

describe("objectives", () => {
  it("runs slices until the agent completes the objective", async () => {
    harness = await startHarness();
    const id = await startConversation();
    const objective = await harness.runtime.openObjective(id, "ship the release [[delay:30]] [[stream:4]]");
    expect(objective).toMatchObject({ status: "open", sliceLimit: 20 });
    expect(objective.slices).toBe(1);
    await pollUntil(() => sliceInputs(id).length >= 2, { what: "two slices" });
    expect(sliceInputs(id)[0].text).toBe("Objective: ship the release [[delay:30]] [[stream:4]]");
    expect(sliceInputs(id)[1].text).toBe("Continue the objective: ship the release [[delay:30]] [[stream:4]]");
    await harness.runtime.sendMessage(id, { text: '[[tool:objective_update {"status":"completed","note":"done"}]]', mode: "steer" });
    await pollUntil(() => objectiveOf(id).status === "completed", { what: "the objective to complete" });
    await pollUntil(() => harness.runtime.getConversation(id).status === "idle" && harness.runtime.listWaiting(id).length === 0, { what: "idle" });
    const turns = harness.runtime.listTurns(id).length;
    expect(harness.runtime.getConversation(id).status).toBe("idle");
    expect(harness.runtime.listTurns(id)).toHaveLength(turns);
  });

  it("pauses at the slice limit and says why", async () => {
    harness = await startHarness({ objectiveSliceLimit: 3 });
    const id = await startConversation();
    await harness.runtime.openObjective(id, "keep going");
    await pollUntil(() => objectiveOf(id).status === "paused", { what: "the objective to pause" });
    expect(objectiveOf(id)).toMatchObject({ slices: 3, reason: "the slice limit (3) was reached" });
    expect(sliceInputs(id)).toHaveLength(3);
  });

  it("pauses when a slice fails", async () => {
    harness = await startHarness();
    const id = await startConversation();
    await harness.runtime.openObjective(id, "break [[fail:400*1]]");
    await pollUntil(() => objectiveOf(id).status === "paused", { what: "the objective to pause" });
    expect(objectiveOf(id).reason).toMatch(/^the last turn failed: /);
  });

  it("lets the owner finish it with /done or cancel it", async () => {
    harness = await startHarness();
    const id = await startConversation();
    await harness.runtime.openObjective(id, "long [[delay:50]] [[stream:10]]");
    expect((await harness.runtime.changeObjective(id, "completed")).status).toBe("completed");
    await pollUntil(() => harness.runtime.getConversation(id).status === "idle", { what: "idle" });
    const turnsAfterDone = harness.runtime.listTurns(id).length;
    await harness.runtime.openObjective(id, "another [[delay:50]] [[stream:10]]");
    expect((await harness.runtime.changeObjective(id, "cancelled")).status).toBe("cancelled");
    await pollUntil(() => harness.runtime.getConversation(id).status === "idle", { what: "idle" });
    expect(harness.runtime.listTurns(id).length).toBe(turnsAfterDone + 1);
    await expect(harness.runtime.openObjective(id, "x".repeat(501))).rejects.toMatchObject({ code: "bad_request" });
  });

  it("leaves a notice in the conversation at each change of status: opened, limit reached, resumed, replaced, completed", async () => {
    harness = await startHarness({ objectiveSliceLimit: 2 });
    const id = await startConversation();
    const notices = () =>
      harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.kind === "notice" && item.origin === "objective").map((item) => item.text);
    await harness.runtime.openObjective(id, "first goal [[stream:2]]");
    // The status is the owner's as soon as its record is written; the notice follows in the same command.
    await pollUntil(() => objectiveOf(id).status === "paused" && notices().length === 2, { what: "the objective to pause at its limit, and its notice" });
    expect(notices()).toEqual(["Objective opened: first goal [[stream:2]] · up to 2 slices", "Objective paused: the slice limit (2) was reached · 2 slices"]);
    await harness.runtime.changeObjective(id, "open");
    await pollUntil(() => objectiveOf(id).status === "paused", { what: "the resumed objective to pause again" });
    await harness.runtime.openObjective(id, "second goal [[delay:50]] [[stream:10]]");
    await harness.runtime.changeObjective(id, "completed", "shipped");
    await pollUntil(() => harness.runtime.getConversation(id).status === "idle", { what: "idle" });
    expect(notices()).toEqual([
      "Objective opened: first goal [[stream:2]] · up to 2 slices",
      "Objective paused: the slice limit (2) was reached · 2 slices",
      "Objective resumed",
      "Objective paused: the slice limit (2) was reached · 2 slices",
      "Objective cancelled: replaced by a new objective · 2 slices",
      "Objective opened: second goal [[delay:50]] [[stream:10]] · up to 2 slices",
      "Objective completed: shipped · 1 slice",
    ]);
    // Each notice sits where it happened: "opened" before the first slice, "paused" after the first objective's second slice.
    const items = harness.runtime.listItems(id, { limit: 500 }).items;
    const slicesBefore = (text: string) => {
      const at = items.findIndex((item) => item.kind === "notice" && item.origin === "objective" && item.text?.startsWith(text));
      return items.slice(0, at).filter((item) => item.kind === "user_message" && item.origin === "objective").length;
    };
    expect(slicesBefore("Objective opened")).toBe(0);
    expect(slicesBefore("Objective paused")).toBe(2);
  });

  it("honours requestKey on open and change, across a restart: the same key answers again and writes nothing", async () => {
    harness = await startHarness();
    const id = await startConversation();
    const metadata = () => fs.readFileSync(path.join(harness.home, "conversations", id, "metadata.jsonl"), "utf8");
    const count = (type: string) => metadata().split("\n").filter((line) => line.includes(`"type":"${type}"`)).length;

    const opened = await harness.runtime.openObjective(id, "keyed goal [[stream:2]]", "open-1");
    const again = await harness.runtime.openObjective(id, "keyed goal [[stream:2]]", "open-1");
    expect(again.id).toBe(opened.id);
    expect(count("objective.opened")).toBe(1);
    await expect(harness.runtime.openObjective(id, "another goal", "open-1")).rejects.toMatchObject({ code: "idempotency_conflict" });

    await harness.runtime.changeObjective(id, "cancelled", undefined, "cancel-1");
    const updates = count("objective.updated");
    await harness.restart();
    expect((await harness.runtime.changeObjective(id, "cancelled", undefined, "cancel-1")).status).toBe("cancelled");
    expect((await harness.runtime.openObjective(id, "keyed goal [[stream:2]]", "open-1")).id).toBe(opened.id);
    expect(count("objective.updated")).toBe(updates);
    expect(count("objective.opened")).toBe(1);
  });

  it("survives a restart and continues", async () => {
    harness = await startHarness({ objectiveSliceLimit: 4 });
    const id = await startConversation();
    await harness.runtime.openObjective(id, "persist [[delay:40]] [[stream:5]]");
    await pollUntil(() => objectiveOf(id).slices >= 2, { what: "the second slice" });
    await harness.restart();
    expect(objectiveOf(id).status === "open" || objectiveOf(id).status === "paused").toBe(true);
    await pollUntil(() => objectiveOf(id).status === "paused", { what: "the objective to run to its limit" });
    expect(objectiveOf(id)).toMatchObject({ slices: 4, reason: "the slice limit (4) was reached" });
  });

  it("puts the open objective in the model's context", async () => {
    harness = await startHarness();
    const id = await startConversation();
    await harness.runtime.openObjective(id, "make tests green [[delay:30]] [[stream:3]]");
    const context = harness.runtime.getContext(id);
    expect(context.contextWindow).toBeGreaterThan(0);
    const { nextRequest } = await import("@/lib/context/context-usage");
    const actor = harness.runtime.actor(id);
    expect(nextRequest(actor, actor.root).system).toContain("Open objective (slice");
    expect(nextRequest(actor, actor.root).system).toContain("make tests green");
    await harness.runtime.changeObjective(id, "cancelled");
  });
});
