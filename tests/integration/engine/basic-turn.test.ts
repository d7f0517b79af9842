import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

describe("a turn with the offline model", () => {
  it("echoes the message and streams the extra words", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "hello there [[stream:3]]" });
    expect(created.conversation.title).toBe("hello there [[stream:3]]");
    const turn = await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(turn.status).toBe("completed");
    const { items } = harness.runtime.listItems(created.conversation.id, {});
    expect(items.map((item) => item.kind)).toEqual(["user_message", "assistant_message"]);
    expect(items[1].text).toBe("You said: hello there w1 w2 w3");
    expect(harness.runtime.getConversation(created.conversation.id).status).toBe("idle");
  });
});
