import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Approval } from "@/lib/events/entities";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

const COMMAND = "touch ran.marker && echo approved-output";
const SHELL_TURN = `[[tool:shell ${JSON.stringify({ command: COMMAND })}]]`;

/** Starts a turn that asks to run COMMAND (shell asks by default) and waits until it is parked. */
async function parkOnApproval(): Promise<{ conversationId: string; turnId: string; approval: Approval }> {
  const created = await harness.runtime.createConversation({ text: SHELL_TURN });
  const conversationId = created.conversation.id;
  const requested = await harness.waitForEvent(conversationId, "approval.requested");
  await harness.waitForEvent(conversationId, "turn.updated", (event) => event.turn.status === "waiting_approval");
  return { conversationId, turnId: created.turn.id, approval: requested.approval };
}

async function expectParked(conversationId: string, turnId: string, approval: Approval): Promise<void> {
  const { runtime } = harness;
  expect(runtime.getTurn(turnId).status).toBe("waiting_approval");
  expect(runtime.getConversation(conversationId).status).toBe("waiting");
  expect((await runtime.listApprovals("pending")).map((pending) => pending.id)).toEqual([approval.id]);
  const call = harness.items(conversationId).find((item) => item.kind === "tool_call");
  expect(call).toMatchObject({ id: approval.itemId, toolName: "shell", status: "waiting", input: { command: COMMAND } });
  expect(fs.existsSync(path.join(harness.cwd, "ran.marker"))).toBe(false);
}

async function expectApprovedRun(conversationId: string, turnId: string): Promise<void> {
  const turn = await harness.turnEnded(conversationId, turnId);
  expect(turn.status).toBe("completed");
  const items = harness.items(conversationId);
  expect(items.find((item) => item.kind === "tool_call")).toMatchObject({
    status: "completed",
    output: "approved-output\n",
    exitCode: 0,
  });
  expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "Tool shell returned: approved-output" });
  expect(fs.existsSync(path.join(harness.cwd, "ran.marker"))).toBe(true);
  expect((await harness.runtime.listApprovals("pending"))).toEqual([]);
  expect(harness.runtime.getConversation(conversationId).status).toBe("idle");
}

async function expectDeniedRun(conversationId: string, turnId: string): Promise<void> {
  const turn = await harness.turnEnded(conversationId, turnId);
  expect(turn.status).toBe("completed");
  const items = harness.items(conversationId);
  expect(items.find((item) => item.kind === "tool_call")).toMatchObject({ status: "denied", output: "The owner denied this tool call." });
  // The model was told: the offline model answers with the first line of the last tool result.
  expect(items.at(-1)).toMatchObject({ kind: "assistant_message", text: "Tool shell returned: The owner denied this tool call." });
  expect(fs.existsSync(path.join(harness.cwd, "ran.marker"))).toBe(false);
  expect((await harness.runtime.listApprovals("pending"))).toEqual([]);
}

describe("approvals", () => {
  it("a decision with a requestKey answers its retry as the first time, across a restart; another decision under that key is idempotency_conflict", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();
    const first = await harness.runtime.decideApproval(approval.id, "approve", "decide-1");
    expect(first).toMatchObject({ id: approval.id, status: "approved" });
    await expectApprovedRun(conversationId, turnId);
    expect(await harness.runtime.decideApproval(approval.id, "approve", "decide-1")).toMatchObject({ id: approval.id, status: "approved" });
    await expect(harness.runtime.decideApproval(approval.id, "deny", "decide-1")).rejects.toMatchObject({ code: "idempotency_conflict" });
    await harness.restart();
    await expect(harness.runtime.decideApproval(approval.id, "deny", "decide-1")).rejects.toMatchObject({ code: "idempotency_conflict" });
    expect(await harness.runtime.decideApproval(approval.id, "approve", "decide-1")).toMatchObject({ status: "approved" });
  });

  it("park the turn on a shell call with policy ask; approving runs it and the output reaches the item and the model", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();
    expect(approval).toMatchObject({ status: "pending", toolName: "shell", turnId, input: { command: COMMAND } });
    await expectParked(conversationId, turnId, approval);

    const decided = await harness.runtime.decideApproval(approval.id, "approve");
    expect(decided).toMatchObject({ id: approval.id, status: "approved" });
    expect(decided.decidedAt).not.toBeNull();
    await expectApprovedRun(conversationId, turnId);
    expect((await harness.runtime.listApprovals("approved")).map((entry) => entry.id)).toEqual([approval.id]);
  });

  it("denying returns a denial to the model and never runs the command", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();

    const decided = await harness.runtime.decideApproval(approval.id, "deny");
    expect(decided.status).toBe("denied");
    await expectDeniedRun(conversationId, turnId);
  });

  it("stay parked across a restart; approving afterwards resumes the turn", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();

    await harness.restart();
    await expectParked(conversationId, turnId, approval);

    await harness.runtime.decideApproval(approval.id, "approve");
    await expectApprovedRun(conversationId, turnId);
  });

  it("stay parked across a restart; denying afterwards resumes the turn with the denial", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();

    await harness.restart();
    await expectParked(conversationId, turnId, approval);

    await harness.runtime.decideApproval(approval.id, "deny");
    await expectDeniedRun(conversationId, turnId);
  });

  it("an interrupt while parked marks the call interrupted and settles the approval", async () => {
    harness = await startHarness();
    const { conversationId, turnId, approval } = await parkOnApproval();

    const listEvents: string[] = [];
    const detach = harness.runtime.subscribeList(({ event }) => {
      if (event.type === "approval.decided") listEvents.push(`${event.approval.id} ${event.approval.status}`);
    });
    await harness.runtime.interrupt(conversationId);
    expect((await harness.turnEnded(conversationId, turnId)).status).toBe("interrupted");
    detach();
    expect(harness.items(conversationId).find((item) => item.kind === "tool_call")?.status).toBe("interrupted");
    expect((await harness.runtime.listApprovals("pending"))).toEqual([]);
    await expect(harness.runtime.decideApproval(approval.id, "approve")).rejects.toMatchObject({ code: "not_idle" });
    expect(fs.existsSync(path.join(harness.cwd, "ran.marker"))).toBe(false);
    // Every client showing the approval (inline, or in the global approvals list) is told it is settled.
    expect(harness.events(conversationId, "approval.decided").map((event) => event.approval)).toMatchObject([
      { id: approval.id, status: "denied" },
    ]);
    expect(listEvents).toEqual([`${approval.id} denied`]);
  });

  it("with policy deny, refuse the call without asking and tell the model", async () => {
    harness = await startHarness({ approvals: { shell: "deny" } });
    const created = await harness.runtime.createConversation({ text: SHELL_TURN });
    const conversationId = created.conversation.id;

    const turn = await harness.turnEnded(conversationId, created.turn.id);
    expect(turn.status).toBe("completed");
    expect(harness.events(conversationId, "approval.requested")).toEqual([]);
    expect((await harness.runtime.listApprovals())).toEqual([]);
    const items = harness.items(conversationId);
    expect(items.find((item) => item.kind === "tool_call")?.status).toBe("denied");
    expect(items.at(-1)?.text).toMatch(/^Tool shell returned: The shell tool is not allowed/);
    expect(fs.existsSync(path.join(harness.cwd, "ran.marker"))).toBe(false);
  });
});
