import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideAndRemember } from "@/lib/api/approval-decision";
import { ApprovalRules, approvalRulesOf, type ApprovalRule } from "@/lib/tools/approval-rules";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "../cli/run-atrium";

/**
 * DESIGN §6 and §10c: "always allow in this project" rules are the cluster's, not a node's file.
 * A rule remembered on one node answers for a call of a conversation another node holds in the
 * same project, every node lists it, and a removal on any node makes every node ask again.
 * Two real Runtimes, nodes of one real PostgreSQL; `atrium migrate` as a real process.
 */
const database = usePostgresPerFile();
const shell = (command: string) => `[[tool:shell ${JSON.stringify({ command })}]]`;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  [a, b] = await Promise.all([startHarness({}, undefined, { databaseUrl: database.postgres.url }), startHarness({}, undefined, { databaseUrl: database.postgres.url })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/** The shell call of a conversation's only turn, once the turn has ended. */
async function shellCallOf(harness: Harness, conversationId: string): Promise<Record<string, unknown>> {
  await harness.settledTurns(conversationId, 1);
  const call = harness.items(conversationId).find((item) => item.kind === "tool_call") as unknown as Record<string, unknown> | undefined;
  expect(call).toBeDefined();
  return call!;
}

const rulesOn = async (harness: Harness): Promise<ApprovalRule[]> => approvalRulesOf(harness.runtime.store.paths.home).list();
const matchesOn = (harness: Harness, command: string) =>
  approvalRulesOf(harness.runtime.store.paths.home).match({ machine: "local", path: a.cwd, toolName: "shell", input: { command } });

describe("approval rules on a cluster", () => {
  it("a rule remembered on A answers on B in the same project; B lists it; removed on B, A asks again", async () => {
    // A: the owner approves with "always allow" for `echo` in A's folder.
    const first = await a.runtime.createConversation({ text: shell("echo first"), cwd: a.cwd });
    expect(first.conversation.machine).toBe("local");
    const requested = await a.waitForEvent(first.conversation.id, "approval.requested");
    const { rule } = await decideAndRemember(a.runtime, requested.approval.id, { tool: "shell", commandPrefix: "echo" });
    expect(await shellCallOf(a, first.conversation.id)).toMatchObject({ status: "completed" });

    // B lists it (the database's rules, on every node), and hears of it.
    expect(await rulesOn(b)).toEqual([rule]);
    expect(await rulesOn(b)).toEqual(await rulesOn(a));
    await pollUntil(() => matchesOn(b, "echo hi") !== null, { what: "B hearing of the rule", timeoutMs: 5_000 });

    // B: a conversation it holds, in the same project, runs `echo hi` without asking.
    const second = await b.runtime.createConversation({ text: shell("echo hi"), cwd: a.cwd });
    expect(b.runtime.cluster).not.toBeNull();
    const call = await shellCallOf(b, second.conversation.id);
    expect(call).toMatchObject({ status: "completed", allowedBy: { ruleId: rule.id, tool: "shell", commandPrefix: "echo" } });
    expect(b.events(second.conversation.id, "approval.requested")).toEqual([]);

    // Removed on B: A stops applying it within moments, and asks again.
    expect(await approvalRulesOf(b.runtime.store.paths.home).remove(rule.id)).toBe(true);
    expect(await approvalRulesOf(b.runtime.store.paths.home).remove(rule.id)).toBe(false);
    expect(await rulesOn(a)).toEqual([]);
    await pollUntil(() => matchesOn(a, "echo again") === null, { what: "A hearing of the removal", timeoutMs: 5_000 });
    const third = await a.runtime.createConversation({ text: shell("echo again"), cwd: a.cwd });
    const asked = await a.waitForEvent(third.conversation.id, "approval.requested");
    expect(asked.approval.toolName).toBe("shell");
    await a.runtime.decideApproval(asked.approval.id, "deny");
    expect(await shellCallOf(a, third.conversation.id)).toMatchObject({ status: "denied" });
  });

  it("the same rule remembered on two nodes is kept once, and the list keeps the order rules were made in", async () => {
    const book = (harness: Harness) => approvalRulesOf(harness.runtime.store.paths.home);
    const made = await book(a).add({ machine: "local", path: "/srv/one", tool: "write_file", commandPrefix: null });
    const again = await book(b).add({ machine: "local", path: "/srv/one/", tool: "write_file", commandPrefix: " " });
    expect(again).toEqual(made);
    const later = await book(b).add({ machine: "local", path: "/srv/one", tool: "shell", commandPrefix: "npm test" });
    expect(await book(a).list()).toEqual([made, later]);
    expect(await book(a).list({ path: "/srv/one", machine: "local" })).toEqual([made, later]);
    expect(await book(a).list({ machine: "laptop" })).toEqual([]);
    // Nothing of them in either node's data directory.
    expect(new ApprovalRules(a.runtime.store.paths.home).list()).toEqual([]);
    expect(new ApprovalRules(b.runtime.store.paths.home).list()).toEqual([]);
    for (const rule of [made, later]) await book(a).remove(rule.id);
  });

  it("after its listening connection was lost, a node reads the rules again (a removal it never heard counts)", async () => {
    const made = await approvalRulesOf(b.runtime.store.paths.home).add({ machine: "local", path: a.cwd, tool: "shell", commandPrefix: "ls" });
    await pollUntil(() => matchesOn(a, "ls -l")?.id === made.id, { what: "A hearing of the rule", timeoutMs: 5_000 });
    // A removal whose notice A never hears (as one sent while its connection was down).
    await database.pool.query("DELETE FROM atrium_approval_rules");
    expect(matchesOn(a, "ls -l")?.id).toBe(made.id);
    await database.pool.query("SELECT pg_terminate_backend($1)", [a.cluster!.node.feed.listenerPid!]);
    await pollUntil(() => matchesOn(a, "ls -l") === null, { what: "A reading the rules again after dialling back", timeoutMs: 5_000 });
  });

  it("atrium migrate copies a data directory's rules, in order, once", async () => {
    const { home, cleanup } = makeTempHome("atrium-migrate-rules-");
    try {
      const file = new ApprovalRules(home);
      const kept = [
        file.add({ machine: "local", path: "/srv/migrated", tool: "shell", commandPrefix: "make" }, new Date("2026-01-01T00:00:00Z")),
        file.add({ machine: "laptop", path: "/home/me/site", tool: "write_file", commandPrefix: null }, new Date("2026-01-02T00:00:00Z")),
      ];
      const run = await runAtrium(["migrate", "--to", database.postgres.url], { home });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('"Always allow" rules: copied 2; 0 already there.');
      const again = await runAtrium(["migrate", "--to", database.postgres.url], { home });
      expect(again.stdout).toContain('"Always allow" rules: copied 0; 2 already there.');
      // Every node has them, and applies them.
      expect(await rulesOn(b)).toEqual(kept);
      await pollUntil(
        () => approvalRulesOf(a.runtime.store.paths.home).match({ machine: "local", path: "/srv/migrated", toolName: "shell", input: { command: "make all" } })?.id === kept[0]!.id,
        { what: "A hearing of the migrated rules", timeoutMs: 5_000 },
      );
    } finally {
      cleanup();
    }
  }, 60_000);
});
