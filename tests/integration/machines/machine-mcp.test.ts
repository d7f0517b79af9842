import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER } from "../../support/mcp-servers";
import { startMachineProcess } from "../../support/machine-process";
import { pollUntil } from "../../support/poll";
import { connectSse } from "../../support/sse-client";
import { createOn, endedTurn, items, linkMachine, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

/** server-everything from node_modules, as a user's config would start it, on the machine named `laptop`. */
const MCP_SERVERS = {
  lapserver: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], machine: "laptop", approval: "auto", tools: { echo: "ask" } },
  ghost: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], machine: "nowhere" },
};

interface ServerView {
  name: string;
  status: string;
  error: string | null;
  toolCount: number;
  machine: string | null;
}

let scene: Scene;
let laptop: Awaited<ReturnType<typeof linkMachine>>;

beforeAll(async () => {
  scene = await startGateway(undefined, undefined, { mcpServers: MCP_SERVERS });
  laptop = await linkMachine(scene, "laptop").catch((error: unknown) => {
    throw new Error(`${String(error)}\n${scene.server.output()}`);
  });
}, 90_000);

afterAll(async () => {
  await laptop?.process.stop();
  await scene?.cleanup();
});

async function overview(query = ""): Promise<{ tools: Array<{ name: string }>; mcpServers: ServerView[] }> {
  return (await scene.server.api(`/api/tools${query}`)).json();
}

async function serverStatus(status: string): Promise<ServerView> {
  return pollUntil(
    async () => {
      const server = (await overview()).mcpServers.find((candidate) => candidate.name === "lapserver");
      return server?.status === status ? server : undefined;
    },
    { what: `lapserver to be ${status}`, timeoutMs: 30_000 },
  );
}

function call(tool: string, input: Record<string, unknown>): string {
  return `[[tool:mcp__lapserver__${tool} ${JSON.stringify(input)}]]`;
}

describe("an MCP stdio server configured for a machine (DESIGN §10b)", () => {
  it("starts on the machine when it links, shows its machine in the overview, and an unknown machine is a failed server", async () => {
    const server = await serverStatus("connected");
    expect(server).toMatchObject({ machine: "laptop", error: null });
    expect(server.toolCount).toBeGreaterThan(5);
    const ghost = (await overview()).mcpServers.find((candidate) => candidate.name === "ghost")!;
    expect(ghost).toMatchObject({ status: "failed", machine: "nowhere", toolCount: 0 });
    expect(ghost.error).toContain('machine "nowhere" is not a machine of this gateway');
    // Started by the machine itself, in its first root, inside its own sandbox.
    expect(laptop.process.output()).toContain(`in ${laptop.root} (bwrap)`);
  });

  it("its tools run on the machine, with the machine's clean environment, and only in that machine's conversations", async () => {
    await serverStatus("connected");
    const onLaptop = (await overview(`?machine=${laptop.id}`)).tools.map((tool) => tool.name);
    expect(onLaptop).toContain("mcp__lapserver__get-env");
    const onLocal = (await overview("?machine=local")).tools.map((tool) => tool.name);
    expect(onLocal).not.toContain("mcp__lapserver__get-env");

    const created = await (await createOn(scene.server, { text: `${call("get-env", {})} ${call("get-sum", { a: 2, b: 40 })}`, machine: laptop.id })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const [env, sum] = toolCalls(await items(scene.server, created.conversation.id));
    expect(sum).toMatchObject({ status: "completed", output: "The sum of 2 and 40 is 42." });
    expect(env.status).toBe("completed");
    const printed = JSON.parse(env.output!) as Record<string, string>;
    expect(printed.HOME).toBe(laptop.process.home);
    // The machine's token and Atrium's own variables never reach a server it starts.
    expect(Object.keys(printed).filter((name) => name.startsWith("ATRIUM"))).toEqual([]);

    const local = await (await createOn(scene.server, { text: call("get-sum", { a: 1, b: 1 }) })).json();
    await endedTurn(scene.server, local.turn.id);
    const [refused] = toolCalls(await items(scene.server, local.conversation.id));
    expect(refused.status).toBe("failed");
    expect(refused.output).toContain('Unknown tool "mcp__lapserver__get-sum"');
  });

  it("asks for approval in the machine's conversation as for any tool, and runs once approved", async () => {
    await serverStatus("connected");
    const created = await (await createOn(scene.server, { text: call("echo", { message: "from the laptop" }), machine: laptop.id })).json();
    const approval = await pollUntil(
      async () => {
        const { approvals } = (await (await scene.server.api("/api/approvals?status=pending")).json()) as { approvals: Array<{ id: string; conversationId: string; toolName: string }> };
        return approvals.find((candidate) => candidate.conversationId === created.conversation.id);
      },
      { what: "the echo call's approval" },
    );
    expect(approval.toolName).toBe("mcp__lapserver__echo");
    const { conversation } = await (await scene.server.api(`/api/conversations/${created.conversation.id}`)).json();
    // The approval is the conversation's, and the conversation is the machine's: the UI names it "on laptop".
    expect(conversation.machine).toBe(laptop.id);
    await scene.server.api(`/api/approvals/${approval.id}`, { method: "POST", body: JSON.stringify({ decision: "approve" }) });
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, created.conversation.id))[0]).toMatchObject({ status: "completed", output: "Echo: from the laptop" });
  });

  it("interrupt cancels a long call on the machine's server, and the server stays usable", async () => {
    await serverStatus("connected");
    const created = await (await createOn(scene.server, { text: call("trigger-long-running-operation", { duration: 60, steps: 60 }), machine: laptop.id })).json();
    const id = created.conversation.id;
    await pollUntil(async () => toolCalls(await items(scene.server, id))[0]?.output?.includes("progress 1/60"), { what: "the first progress line from the machine" });
    await scene.server.api(`/api/conversations/${id}/interrupt`, { method: "POST", body: "{}" });
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("interrupted");
    expect(toolCalls(await items(scene.server, id))[0].status).toBe("interrupted");
    const again = await (await scene.server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: call("get-sum", { a: 3, b: 4 }) }) })).json();
    expect((await endedTurn(scene.server, again.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, id)).at(-1)).toMatchObject({ status: "completed", output: "The sum of 3 and 4 is 7." });
  });

  it("a machine killed mid-call: the call ends interrupted, the turn fails machine_disconnected; the server starts again when the machine is back", async () => {
    await serverStatus("connected");
    const created = await (await createOn(scene.server, { text: call("trigger-long-running-operation", { duration: 60, steps: 60 }), machine: laptop.id })).json();
    const id = created.conversation.id;
    const stream = await connectSse(`${scene.server.url}/api/conversations/${id}/events`, { authorization: `Bearer ${scene.server.token}` });
    try {
      await stream.waitFor((event) => event.event === "item.delta" && JSON.parse(event.data).delta.startsWith("progress 1/60"), 20_000);
    } finally {
      stream.close();
    }
    laptop.process.child.kill("SIGKILL");
    const turn = await endedTurn(scene.server, created.turn.id);
    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("machine_disconnected");
    const [interrupted] = toolCalls(await items(scene.server, id));
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.output).toContain("progress 1/60");
    expect(interrupted.output).toContain("effects are unknown");
    expect((await (await scene.server.api(`/api/conversations/${id}`)).json()).conversation.status).toBe("idle");
    const down = await serverStatus("failed");
    expect(down.error).toContain("laptop disconnected");

    // The same machine comes back (same token, same HOME): its server is started there again by itself.
    await laptop.process.exited;
    const base = path.dirname(laptop.process.home);
    laptop.process = startMachineProcess({ url: scene.server.url, token: laptop.token, home: path.join(base, "home"), roots: [laptop.root] });
    await machineStatus(scene.server, laptop.id, "online");
    await serverStatus("connected");
    const again = await (await scene.server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: call("get-sum", { a: 20, b: 22 }) }) })).json();
    expect((await endedTurn(scene.server, again.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, id)).at(-1)).toMatchObject({ status: "completed", output: "The sum of 20 and 22 is 42." });
    expect(fs.existsSync(laptop.root)).toBe(true);
  }, 90_000);
});
