import { describe, expect, it } from "vitest";
import { startHarness } from "../../support/runtime-harness";

/**
 * Issue 24, step (d): only a node of a cluster captures its index's changes (TEMP triggers on the
 * index tables, lib/store/postgres/index-row-capture.ts). A single server's index connection has
 * no such trigger or table after a turn, and its Store holds no cluster side.
 */
describe("a single server's index", () => {
  it("has no capture triggers or tables after a turn", async () => {
    const harness = await startHarness();
    try {
      const { conversation } = await harness.runtime.createConversation({ text: "hello" });
      await harness.settledTurns(conversation.id, 1);
      const temp = harness.runtime.store.index.$client.prepare("SELECT type, name FROM sqlite_temp_master").all();
      expect(temp).toEqual([]);
      expect(harness.runtime.store.cluster).toBeNull();
      expect(harness.items(conversation.id).length).toBeGreaterThan(0);
    } finally {
      await harness.close();
    }
  });
});
