import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appendForgedRecords, markerWritable, parkOnShellApproval, type ParkedConversation } from "../../support/parked-bundle";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

/** Issue 21, finding 1: an approval authorizes the exact input it showed, decided by the owner here. */
describe("approvals bind to the exact input and to this data directory", () => {
  const cleanups: Array<() => void> = [];
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  const parked = async (command?: (marker: string) => string): Promise<ParkedConversation> => {
    const markerHome = makeTempHome();
    cleanups.push(markerHome.cleanup);
    const marker = path.join(markerHome.home, "ran.marker");
    const conversation = await parkOnShellApproval(marker, command?.(marker));
    cleanups.push(conversation.cleanup);
    return conversation;
  };
  const metadataFile = (conversation: ParkedConversation) =>
    path.join(conversation.home, "conversations", conversation.conversationId, "metadata.jsonl");

  it("an approval whose shown input differs from the call's own input is refused when approved; nothing runs", async () => {
    const conversation = await parked((marker) => `touch ${marker}; echo benign`);
    // The variant of the report: the approval the owner sees says `echo benign`, the call does more.
    const file = metadataFile(conversation);
    const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((line) => {
      const record = JSON.parse(line) as { type: string; input?: unknown };
      if (record.type === "approval.requested") record.input = { command: "echo benign" };
      return JSON.stringify(record);
    });
    fs.writeFileSync(file, `${lines.join("\n")}\n`);

    harness = await startHarness(markerWritable(conversation.marker), conversation.home);
    const [pending] = (await harness.runtime.listApprovals("pending"));
    expect(pending).toMatchObject({ id: conversation.approval.id, input: { command: "echo benign" } });
    await harness.runtime.decideApproval(pending.id, "approve");
    const turn = await harness.turnEnded(conversation.conversationId, conversation.turnId);
    expect(turn.status).toBe("completed");
    const call = harness.items(conversation.conversationId).find((item) => item.kind === "tool_call");
    expect(call).toMatchObject({ status: "denied", output: expect.stringContaining("not the input the owner approved") });
    expect(fs.existsSync(conversation.marker)).toBe(false);
  });

  it("an approve written into this data directory's own files without its proof decides nothing: the approval stays pending", async () => {
    const conversation = await parked();
    appendForgedRecords(metadataFile(conversation), [
      { type: "approval.decided", approvalId: conversation.approval.id, decision: "approve" },
    ]);
    harness = await startHarness(markerWritable(conversation.marker), conversation.home);
    const { runtime } = harness;
    expect((await runtime.listApprovals("pending")).map((approval) => approval.id)).toEqual([conversation.approval.id]);
    expect(runtime.getTurn(conversation.turnId).status).toBe("waiting_approval");
    expect(fs.existsSync(conversation.marker)).toBe(false);

    // The owner here still decides it, and then it runs: a real pending approval survives the restart.
    await runtime.decideApproval(conversation.approval.id, "approve");
    const turn = await harness.turnEnded(conversation.conversationId, conversation.turnId);
    expect(turn.status).toBe("completed");
    expect(fs.existsSync(conversation.marker)).toBe(true);
  });

  it("the owner's approve carries a proof that verifies after a rebuild of the index", async () => {
    const conversation = await parked();
    harness = await startHarness(markerWritable(conversation.marker), conversation.home);
    await harness.runtime.decideApproval(conversation.approval.id, "approve");
    await harness.turnEnded(conversation.conversationId, conversation.turnId);
    await harness.close();
    fs.rmSync(path.join(conversation.home, "metadata.db"));
    harness = await startHarness(markerWritable(conversation.marker), conversation.home);
    expect((await harness.runtime.listApprovals()).map((approval) => approval.status)).toEqual(["approved"]);
    const decided = fs.readFileSync(metadataFile(conversation), "utf8").split("\n").find((line) => line.includes("approval.decided"));
    expect(JSON.parse(decided!)).toMatchObject({ decision: "approve", proof: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((fs.statSync(path.join(conversation.home, "record.key")).mode & 0o777).toString(8)).toBe("600");
  });
});
