import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "@/lib/events/bus";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";

let harness: Harness;
afterEach(async () => harness?.close());

async function idleConversation(text: string): Promise<string> {
  const created = await harness.runtime.createConversation({ text });
  await harness.turnEnded(created.conversation.id, created.turn.id);
  return created.conversation.id;
}

describe("bounded memory", () => {
  it("evicts the least recently used idle owners, rebuilding them from the files on demand", async () => {
    harness = await startHarness({}, undefined, { maxLoadedOwners: 3 });
    const ids: string[] = [];
    for (let index = 0; index < 8; index += 1) ids.push(await idleConversation(`conversation ${index}`));
    expect(harness.runtime.loadedOwners).toBeLessThanOrEqual(3);
    // The first one was evicted; it comes back whole and takes a message.
    expect(harness.items(ids[0]).map((item) => item.text)).toEqual(["conversation 0", "You said: conversation 0"]);
    const sent = await harness.runtime.sendMessage(ids[0], { text: "back", mode: "auto" });
    expect((await harness.turnEnded(ids[0], sent.turn!.id)).status).toBe("completed");
  });

  it("never evicts an owner with a running turn, a parked approval or a live subscriber", async () => {
    harness = await startHarness({}, undefined, { maxLoadedOwners: 1 });
    const subscribed = await idleConversation("subscribed");
    const unsubscribe = harness.runtime.subscribe(subscribed, {}, () => {});
    const subscribedOwner = harness.runtime.actor(subscribed);
    const running = await harness.runtime.createConversation({ text: "long [[delay:20]] [[stream:1000]]" });
    const runningOwner = harness.runtime.actor(running.conversation.id);
    const parked = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo hi" })}]]` });
    await harness.waitForEvent(parked.conversation.id, "approval.requested");
    const parkedOwner = harness.runtime.actor(parked.conversation.id);
    for (let index = 0; index < 4; index += 1) await idleConversation(`filler ${index}`);
    expect(harness.runtime.actor(subscribed)).toBe(subscribedOwner);
    expect(harness.runtime.actor(running.conversation.id)).toBe(runningOwner);
    expect(harness.runtime.actor(parked.conversation.id)).toBe(parkedOwner);
    unsubscribe();
    await harness.runtime.interrupt(parked.conversation.id);
    await harness.runtime.interrupt(running.conversation.id);
    await harness.turnEnded(running.conversation.id, running.turn.id);
  });

  it("drops a bus channel nobody listens to once it has been quiet past its replay window", () => {
    let now = 1_000_000;
    const bus = new EventBus(() => now);
    const event = (conversationId: string) => ({ type: "queue.updated" as const, conversationId, waiting: [] });
    bus.publish(event("01AAAAAAAAAAAAAAAAAAAAAAAA"));
    const seen = bus.lastId("01AAAAAAAAAAAAAAAAAAAAAAAA");
    const unsubscribe = bus.subscribe("01BBBBBBBBBBBBBBBBBBBBBBBB", () => {});
    now += 61_000;
    bus.publish(event("01CCCCCCCCCCCCCCCCCCCCCCCC"));
    expect(bus.channelCount).toBe(2);
    // The dropped channel answers an old Last-Event-ID with null (a fresh snapshot), and its ids keep increasing.
    expect(bus.replay("01AAAAAAAAAAAAAAAAAAAAAAAA", seen - 1)).toBeNull();
    bus.publish(event("01AAAAAAAAAAAAAAAAAAAAAAAA"));
    expect(bus.lastId("01AAAAAAAAAAAAAAAAAAAAAAAA")).toBeGreaterThan(seen);
    unsubscribe();
  });

  it("keeps a running command's output in memory capped like the stored one", async () => {
    harness = await startHarness({ approvals: { shell: "auto" }, artifactBytes: 4096 });
    const command = "head -c 300000 /dev/zero | tr '\\0' x; echo; sleep 30";
    const created = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command })}]]` });
    const id = created.conversation.id;
    const call = () => harness.items(id).find((item) => item.kind === "tool_call");
    await waitUntil(() => (call()?.output ?? "").includes("omitted"), "the output to pass the cap", 15_000);
    expect(call()!.output!.length).toBeLessThan(4096 + 200);
    await harness.runtime.interrupt(id);
    await harness.turnEnded(id, created.turn.id);
  });
});
