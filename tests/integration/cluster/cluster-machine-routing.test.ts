import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { makeTempHome } from "../../support/temp-home";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { connectSse, type SseConnection } from "../../support/sse-client";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { endedTurn, items, machineStatus, toolCalls } from "../machines/machine-fixture";

/**
 * DESIGN §10c: "Machines connect to any node; a tool call reaches its machine through the node
 * holding the link." Two real nodes on one real PostgreSQL and a real `atrium machine connect`
 * process: a conversation on the machine is owned by the node holding the link, whichever node
 * the request arrives at, and follows the machine when it relinks to the other node.
 */
const database = usePostgresPerFile();
const CONFIG = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };
let a: ClusterServer;
let b: ClusterServer;
let temp: ReturnType<typeof makeTempHome>;
let machine: { id: string; token: string; root: string; home: string };
let laptop: MachineProcess | undefined;
let eventsOnA: SseConnection | undefined;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3141, CONFIG), startClusterServer(database.postgres.url, 3142, CONFIG)]);
  temp = makeTempHome("atrium-cluster-routing-");
  const added = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "roaming-laptop" }) });
  expect(added.status).toBe(201);
  const { machine: made, token } = (await added.json()) as { machine: { id: string }; token: string };
  const root = path.join(temp.home, "work");
  fs.mkdirSync(root, { recursive: true });
  machine = { id: made.id, token, root: fs.realpathSync(root), home: path.join(temp.home, "laptop-home") };
}, 90_000);

afterAll(async () => {
  eventsOnA?.close();
  await laptop?.stop();
  await Promise.all([a?.cleanup(), b?.cleanup()]);
  temp?.cleanup();
});

function tool(name: string, input: Record<string, unknown>): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

async function linkTo(server: ClusterServer): Promise<void> {
  await laptop?.stop();
  laptop = startMachineProcess({ url: server.url, token: machine.token, home: machine.home, roots: [machine.root] });
  // Linked, not only claimed: linked_at is marked once the machine's hello made it the node's link.
  await pollUntil(async () => (await database.pool.query("SELECT linked_node FROM atrium_machines WHERE id = $1 AND linked_at IS NOT NULL", [machine.id])).rows[0]?.linked_node === server.nodeId, {
    what: `the machine's link held by ${server.nodeId}`,
    timeoutMs: 30_000,
  });
}

async function holderOf(conversationId: string): Promise<string | null> {
  const rows = await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()", [conversationId]);
  return rows.rows[0]?.node_id ?? null;
}

describe("tool calls reach a machine through the node holding its link", () => {
  it("the other node lists the machine online and hears machine.updated when it links", async () => {
    eventsOnA = await connectSse(`${a.url}/api/events`, { authorization: `Bearer ${a.token}` });
    await linkTo(b);
    await machineStatus(a, machine.id, "online");
    await eventsOnA.waitFor((event) => event.event === "machine.updated" && JSON.parse(event.data).machine.id === machine.id && JSON.parse(event.data).machine.status === "online");
  });

  it("a conversation created on A for a machine linked to B is owned by B and runs its shell call on the machine", async () => {
    const created = await a.api("/api/conversations", {
      method: "POST",
      body: JSON.stringify({ text: tool("shell", { command: "echo home=$HOME; echo cwd=$(pwd)" }), machine: machine.id, cwd: machine.root }),
    });
    expect(created.status).toBe(201);
    const { conversation, turn } = (await created.json()) as { conversation: { id: string; node: string | null }; turn: { id: string } };
    expect(conversation.node).toBe(b.nodeId);
    expect((await endedTurn(a, turn.id)).status).toBe("completed");
    const [call] = toolCalls(await items(a, conversation.id));
    expect(call).toMatchObject({ toolName: "shell", status: "completed" });
    expect(call!.output).toContain(`home=${machine.home}`);
    expect(call!.output).toContain(`cwd=${machine.root}`);
    expect(await holderOf(conversation.id)).toBe(b.nodeId);

    // A message sent on A goes to B's owner too.
    const sent = await a.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", body: JSON.stringify({ text: tool("shell", { command: "echo again=$HOME" }) }) });
    expect(sent.status).toBe(202);
    const second = (await sent.json()) as { turn: { id: string } };
    expect((await endedTurn(a, second.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(a, conversation.id))[1]!.output).toContain(`again=${machine.home}`);
    expect(await holderOf(conversation.id)).toBe(b.nodeId);
  });

  it("when the machine relinks to A, the idle conversation moves to A at its next request and its calls run there", async () => {
    const created = await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: tool("shell", { command: "echo first" }), machine: machine.id }) });
    expect(created.status).toBe(201);
    const { conversation, turn } = (await created.json()) as { conversation: { id: string }; turn: { id: string } };
    expect((await endedTurn(b, turn.id)).status).toBe("completed");
    expect(await holderOf(conversation.id)).toBe(b.nodeId);

    await linkTo(a);
    // B has heard where the machine is now (the database's notice): it lists it online.
    await machineStatus(b, machine.id, "online");
    // Asked on B, which holds the lease: B hands the idle conversation to A, where the machine is.
    const sent = await b.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", body: JSON.stringify({ text: tool("shell", { command: "echo moved=$HOME" }) }) });
    const second = (await sent.json()) as { turn: { id: string } };
    expect(sent.status, JSON.stringify(second)).toBe(202);
    const ended = await endedTurn(b, second.turn.id);
    expect(ended.status).toBe("completed");
    const calls = toolCalls(await items(b, conversation.id));
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(calls[1]!.output).toContain(`moved=${machine.home}`);
    expect(await holderOf(conversation.id)).toBe(a.nodeId);
  });

  it("a second process with the machine's token is refused while another node holds the link", async () => {
    const twin = startMachineProcess({ url: b.url, token: machine.token, home: path.join(temp.home, "twin-home"), roots: [machine.root] });
    try {
      await twin.waitForOutput(/another process is linked with this token/, 1, 20_000);
      const rows = await database.pool.query("SELECT linked_node FROM atrium_machines WHERE id = $1", [machine.id]);
      expect(rows.rows[0].linked_node).toBe(a.nodeId);
    } finally {
      await twin.stop();
    }
  });
});
