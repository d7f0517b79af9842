import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Approval, Item } from "@/lib/events/entities";
import type { ApprovalRule } from "@/lib/tools/approval-rules";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { freePort } from "../../support/mcp-servers";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { makeTempHome } from "../../support/temp-home";
import { createOn, endedTurn, items, toolCalls } from "../machines/machine-fixture";

/**
 * DESIGN §6, §8 and §10c through the API of two real server processes on one real PostgreSQL:
 * `remember` on A's approval makes a rule that B lists and applies to a conversation it holds in
 * the same project; DELETE on B makes A ask again. The answers are those of a single node.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;
let project: string;
let cleanupProject: () => void;

beforeAll(async () => {
  ({ home: project, cleanup: cleanupProject } = makeTempHome("atrium-shared-project-"));
  fs.mkdirSync(path.join(project, "site"));
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, await freePort()), startClusterServer(database.postgres.url, await freePort())]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
  cleanupProject?.();
});

const shell = (command: string) => `[[tool:shell ${JSON.stringify({ command })}]]`;

async function pendingFor(server: ClusterServer, conversationId: string): Promise<Approval> {
  return pollUntil(
    async () => {
      const { approvals } = (await (await server.api("/api/approvals?status=pending")).json()) as { approvals: Approval[] };
      return approvals.find((approval) => approval.conversationId === conversationId);
    },
    { what: `an approval in ${conversationId}` },
  );
}

async function rulesOn(server: ClusterServer): Promise<{ rules: ApprovalRule[]; nextCursor: null }> {
  const answer = await server.api("/api/approval-rules");
  expect(answer.status).toBe(200);
  return answer.json();
}

describe("approval rules through the API of a cluster", () => {
  it("remembered on A, listed and applied on B; deleted on B, A asks again", async () => {
    const cwd = path.join(project, "site");
    const first = await (await createOn(a, { text: shell("echo first"), cwd })).json();
    expect(first.conversation.node).toBe(a.nodeId);
    const approval = await pendingFor(a, first.conversation.id);
    const answer = await a.api(`/api/approvals/${approval.id}`, { method: "POST", body: JSON.stringify({ decision: "approve", remember: { tool: "shell", commandPrefix: "echo" } }) });
    expect(answer.status).toBe(200);
    const { rule } = (await answer.json()) as { rule: ApprovalRule };
    expect(rule).toMatchObject({ machine: "local", path: cwd, tool: "shell", commandPrefix: "echo" });
    await endedTurn(a, first.turn.id);

    expect(await rulesOn(b)).toEqual({ rules: [rule], nextCursor: null });
    expect((await (await b.api(`/api/approval-rules?machine=local&path=${encodeURIComponent(cwd)}`)).json()).rules).toEqual([rule]);

    // A conversation B holds, in the same folder: its `echo` runs without asking (B heard of the
    // rule at its commit, long before this turn's call).
    const second = await (await createOn(b, { text: shell("echo hi"), cwd })).json();
    expect(second.conversation.node).toBe(b.nodeId);
    expect((await endedTurn(b, second.turn.id)).status).toBe("completed");
    const call = toolCalls(await items(b, second.conversation.id)).at(-1) as Item & { allowedBy?: unknown };
    expect(call).toMatchObject({ status: "completed", output: "hi\n", allowedBy: { ruleId: rule.id, tool: "shell", commandPrefix: "echo" } });

    const removed = await b.api(`/api/approval-rules/${rule.id}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    const missing = await b.api(`/api/approval-rules/${rule.id}`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(await rulesOn(a)).toEqual({ rules: [], nextCursor: null });

    const third = await (await createOn(a, { text: shell("echo again"), cwd })).json();
    const asked = await pendingFor(a, third.conversation.id);
    expect(asked.toolName).toBe("shell");
    expect((await a.api(`/api/approvals/${asked.id}`, { method: "POST", body: JSON.stringify({ decision: "deny" }) })).status).toBe(200);
    await endedTurn(a, third.turn.id);
  }, 90_000);
});
