import { afterEach, describe, expect, it } from "vitest";
import { nextRequest } from "@/lib/context/context-usage";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("memories in context", () => {
  it("the remember tool saves a memory that later requests carry, and forget removes it", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: '[[tool:remember {"title":"Favourite fruit","text":"The owner likes quinces"}]]' });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const actor = harness.runtime.actor(id);
    expect(nextRequest(actor, actor.root).system).toContain("- Favourite fruit: The owner likes quinces");
    const next = await harness.runtime.sendMessage(id, { text: '[[tool:forget {"title":"Favourite fruit"}]]', mode: "auto" });
    await harness.turnEnded(id, next.turn!.id);
    expect(nextRequest(actor, actor.root).system).not.toContain("quinces");
  });
});
