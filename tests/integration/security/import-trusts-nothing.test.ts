import fs from "node:fs";
import path from "node:path";
import { ulid } from "ulid";
import { afterEach, describe, expect, it } from "vitest";
import { importConversations } from "@/lib/store/export-import";
import { reindex } from "@/lib/store/reindex";
import { Store } from "@/lib/store/store";
import { craftBundle, forgeApproval, markerWritable, parkOnShellApproval, type ParkedConversation } from "../../support/parked-bundle";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

/**
 * Issue 21, finding 1: a conversation that comes from elsewhere (an `atrium import` bundle, or a
 * directory copied in and found by reindex or the start-up ingest) is trusted with nothing to run.
 */
describe("an imported conversation trusts nothing to run", () => {
  const cleanups: Array<() => void> = [];
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  const temp = () => {
    const made = makeTempHome();
    cleanups.push(made.cleanup);
    return made.home;
  };
  const parked = async (): Promise<ParkedConversation> => {
    const conversation = await parkOnShellApproval(path.join(temp(), "ran.marker"));
    cleanups.push(conversation.cleanup);
    return conversation;
  };

  /** Starts the Runtime on `home` and checks the imported turn was closed, nothing pending and nothing run. */
  async function expectClosedAndNothingRun(home: string, conversation: ParkedConversation): Promise<void> {
    harness = await startHarness(markerWritable(conversation.marker), home);
    const { runtime } = harness;
    // Recovery runs before start() returns; on a runtime that trusted the forged approval the
    // resumed turn ends `completed` after running the command, so wait for the end either way.
    const turn = await harness.turnEnded(conversation.conversationId, conversation.turnId);
    expect(turn).toMatchObject({ status: "interrupted", error: { code: "imported" } });
    expect(fs.existsSync(conversation.marker)).toBe(false);
    expect((await runtime.listApprovals("pending"))).toEqual([]);
    expect((await runtime.listApprovals()).filter((approval) => approval.status === "approved")).toEqual([]);
    const call = harness.items(conversation.conversationId).find((item) => item.kind === "tool_call");
    expect(call).toMatchObject({ id: conversation.approval.itemId, status: "interrupted" });
    expect(harness.items(conversation.conversationId).at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("imported") });
    expect(runtime.getConversation(conversation.conversationId).status).toBe("idle");
  }

  it("a bundle with a forged approval.decided: approve runs nothing at the next start; the turn is closed (imported)", async () => {
    const conversation = await parked();
    const outDir = temp();
    const bundle = await craftBundle(conversation, outDir, (directory) =>
      forgeApproval(path.join(directory, "metadata.jsonl"), conversation, ulid()),
    );
    const home = temp();
    const store = new Store(home, { log: () => {} });
    try {
      const result = await importConversations(store, bundle);
      expect(result.conversations).toMatchObject([{ conversationId: conversation.conversationId, status: "added" }]);
    } finally {
      await store.close();
    }
    await expectClosedAndNothingRun(home, conversation);
  });

  it("a copied directory with a forged approve, found by reindex, runs nothing; the turn is closed (imported)", async () => {
    const conversation = await parked();
    const home = temp();
    const copy = path.join(home, "conversations", conversation.conversationId);
    fs.cpSync(path.join(conversation.home, "conversations", conversation.conversationId), copy, { recursive: true });
    forgeApproval(path.join(copy, "metadata.jsonl"), conversation, ulid());
    reindex(home, { log: () => {} });
    await expectClosedAndNothingRun(home, conversation);
  });

  it("a copied directory found by the start-up ingest (no reindex) runs nothing either", async () => {
    const conversation = await parked();
    const home = temp();
    const copy = path.join(home, "conversations", conversation.conversationId);
    fs.cpSync(path.join(conversation.home, "conversations", conversation.conversationId), copy, { recursive: true });
    forgeApproval(path.join(copy, "metadata.jsonl"), conversation, ulid());
    await expectClosedAndNothingRun(home, conversation);
  });

  it("a copied directory with only its own pending approval is closed too: nobody here asked for it", async () => {
    const conversation = await parked();
    const home = temp();
    fs.cpSync(path.join(conversation.home, "conversations"), path.join(home, "conversations"), { recursive: true });
    await expectClosedAndNothingRun(home, conversation);
    // The decision that dropped it says why.
    const metadata = fs.readFileSync(path.join(home, "conversations", conversation.conversationId, "metadata.jsonl"), "utf8");
    expect(metadata).toContain(`"approvalId":"${conversation.approval.id}","decision":"deny","reason":"imported"`);
  });

  it("a tampered export of this very data directory, imported back over it, is closed at import: its own proofs do not make it trusted", async () => {
    const conversation = await parked();
    const bundle = await craftBundle(conversation, temp(), (directory) =>
      forgeApproval(path.join(directory, "metadata.jsonl"), conversation, ulid()),
    );
    const store = new Store(conversation.home, { log: () => {} });
    try {
      const result = await importConversations(store, bundle);
      expect(result.conversations).toMatchObject([
        { conversationId: conversation.conversationId, status: "replaced", note: expect.stringContaining("1 open turn closed as interrupted (imported)") },
      ]);
    } finally {
      await store.close();
    }
    await expectClosedAndNothingRun(conversation.home, conversation);
  });
});
