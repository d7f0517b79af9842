import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../../support/poll";
import { createOn, endedTurn, items, linkMachine, startGateway, toolCalls, type Scene } from "./machine-fixture";

/** Every machine tool asks first here: these tests are about approvals, the same on `local` and on a linked machine. */
const ASKING = { approvals: { shell: "ask", write_file: "ask", edit_file: "ask" } };

let scene: Scene;
let laptop: Awaited<ReturnType<typeof linkMachine>>;
let localCwd: string;

beforeAll(async () => {
  scene = await startGateway(undefined, undefined, ASKING);
  laptop = await linkMachine(scene, "laptop");
  localCwd = fs.realpathSync(fs.mkdtempSync(path.join(scene.temp, "local-work-")));
}, 90_000);

afterAll(async () => {
  await laptop?.process.stop();
  await scene?.cleanup();
});

interface Approval {
  id: string;
  conversationId: string;
  toolName: string;
  status: string;
}

function tool(name: string, input: Record<string, unknown>): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

async function pendingFor(conversationId: string): Promise<Approval> {
  return pollUntil(
    async () => {
      const { approvals } = (await (await scene.server.api("/api/approvals?status=pending")).json()) as { approvals: Approval[] };
      return approvals.find((approval) => approval.conversationId === conversationId);
    },
    { what: `an approval in ${conversationId}` },
  );
}

async function decide(approvalId: string, body: Record<string, unknown>): Promise<Response> {
  return scene.server.api(`/api/approvals/${approvalId}`, { method: "POST", body: JSON.stringify(body) });
}

function place(where: string): { body: Record<string, unknown>; cwd: string; home: string | undefined } {
  return where === "laptop" ? { body: { machine: laptop.id }, cwd: laptop.root, home: laptop.process.home } : { body: { cwd: localCwd }, cwd: localCwd, home: process.env.HOME };
}

// The same scenarios on the built-in machine and on the linked one (issue 23: a remote conversation does what a local one does).
describe.each(["local", "laptop"])("approvals on %s (DESIGN §6, §10b)", (where) => {
  it("parks the call until approved, then runs it on that machine; a denied call never runs there", async () => {
    const { body, cwd, home } = place(where);
    const created = await (await createOn(scene.server, { text: tool("shell", { command: "echo home=$HOME" }), ...body })).json();
    const approval = await pendingFor(created.conversation.id);
    expect(approval.toolName).toBe("shell");
    expect((await decide(approval.id, { decision: "approve" })).status).toBe(200);
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, created.conversation.id))[0].output).toContain(`home=${home}`);

    const file = `denied-${where}.txt`;
    const refused = await (await createOn(scene.server, { text: tool("write_file", { path: file, content: "no" }), ...body })).json();
    await decide((await pendingFor(refused.conversation.id)).id, { decision: "deny" });
    await endedTurn(scene.server, refused.turn.id);
    expect(toolCalls(await items(scene.server, refused.conversation.id))[0].status).toBe("denied");
    expect(fs.existsSync(path.join(cwd, file))).toBe(false);
  });

  it("'always allow' remembers the rule for this machine and folder: the next matching call there runs without asking", async () => {
    const { body, cwd } = place(where);
    const first = await (await createOn(scene.server, { text: tool("shell", { command: `echo remembered-${where}` }), ...body })).json();
    const approval = await pendingFor(first.conversation.id);
    const answer = await decide(approval.id, { decision: "approve", remember: { tool: "shell", commandPrefix: "echo" } });
    expect(answer.status).toBe(200);
    const { rule } = await answer.json();
    expect(rule).toMatchObject({ machine: where === "laptop" ? laptop.id : "local", path: cwd, tool: "shell", commandPrefix: "echo" });
    await endedTurn(scene.server, first.turn.id);

    const again = await (await scene.server.api(`/api/conversations/${first.conversation.id}/messages`, { method: "POST", body: JSON.stringify({ text: tool("shell", { command: "echo again" }) }) })).json();
    expect((await endedTurn(scene.server, again.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, first.conversation.id)).at(-1)).toMatchObject({ status: "completed", output: "again\n" });

  });
});

describe("an approval rule belongs to one machine (DESIGN §6: per project = machine + folder)", () => {
  it("a rule remembered on the laptop does not answer for the same folder on the gateway's host", async () => {
    const onLaptop = await (await createOn(scene.server, { text: tool("shell", { command: "printf laptop" }), machine: laptop.id })).json();
    await decide((await pendingFor(onLaptop.conversation.id)).id, { decision: "approve", remember: { tool: "shell", commandPrefix: "printf" } });
    expect((await endedTurn(scene.server, onLaptop.turn.id)).status).toBe("completed");
    // Loopback lets the gateway see the laptop's folder too; it is still another computer's project.
    const onLocal = await (await createOn(scene.server, { text: tool("shell", { command: "printf here" }), cwd: laptop.root })).json();
    const asked = await pendingFor(onLocal.conversation.id);
    expect(asked.toolName).toBe("shell");
    await decide(asked.id, { decision: "deny" });
    await endedTurn(scene.server, onLocal.turn.id);
    expect(toolCalls(await items(scene.server, onLocal.conversation.id))[0].status).toBe("denied");
  });
});
