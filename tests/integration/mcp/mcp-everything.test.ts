import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { nextRequest } from "@/lib/context/context-usage";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { everythingStdio, startEverythingHttp } from "../../support/mcp-servers";
import { waitUntil } from "../../support/wait-until";

let harness: Harness | null = null;
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await harness?.close();
  harness = null;
  for (const stop of stops.splice(0)) await stop();
});

async function run(h: Harness, text: string) {
  const created = await h.runtime.createConversation({ text });
  const turn = await h.turnEnded(created.conversation.id, created.turn.id, 20_000);
  return { id: created.conversation.id, turn, calls: h.items(created.conversation.id).filter((item) => item.kind === "tool_call") };
}

function pidWith(marker: string): number | null {
  const lines = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).split("\n");
  const line = lines.find((candidate) => candidate.includes(marker) && !candidate.includes("ps -eo"));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

describe("MCP: server-everything over stdio", () => {
  it("lists its tools as mcp__everything__* with the server's schema, and calls echo and get-sum", async () => {
    harness = await startHarness({ mcpServers: { everything: { ...everythingStdio(), approval: "auto" } } });
    const [server] = harness.runtime.extensions.servers();
    expect(server).toMatchObject({ name: "everything", transport: "stdio", status: "connected", error: null });
    expect(server.toolCount).toBeGreaterThan(5);
    const sum = harness.runtime.context.tools.find((tool) => tool.name === "mcp__everything__get-sum")!;
    expect(sum.inputJsonSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } });

    const { turn, calls } = await run(harness, '[[tool:mcp__everything__echo {"message":"hello mcp"}]] [[tool:mcp__everything__get-sum {"a":2,"b":40}]]');
    expect(turn.status).toBe("completed");
    expect(calls.map((call) => [call.toolName, call.status, call.output])).toEqual([
      ["mcp__everything__echo", "completed", "Echo: hello mcp"],
      ["mcp__everything__get-sum", "completed", "The sum of 2 and 40 is 42."],
    ]);

    // A large result goes to an artifact like any other tool's.
    const big = "quince ".repeat(4000);
    const large = await run(harness, `[[tool:mcp__everything__echo {"message":"${big}"}]]`);
    expect(large.calls[0].artifactId).toBeTruthy();
    expect(large.calls[0].output!.length).toBeLessThan(big.length);
    expect(large.calls[0].output).toContain(large.calls[0].artifactId!);
  });

  it("streams progress into the tool_call item, and interrupt cancels a long-running call", async () => {
    harness = await startHarness({ mcpServers: { everything: { ...everythingStdio(), approval: "auto" } } });
    const quick = await run(harness, '[[tool:mcp__everything__trigger-long-running-operation {"duration":0.3,"steps":3}]]');
    const call = quick.calls[0];
    expect(call.status).toBe("completed");
    expect(call.output).toContain("Long running operation completed");
    const deltas = harness
      .events(quick.id, "item.delta")
      .filter((event) => event.itemId === call.id && event.field === "output")
      .map((event) => event.delta);
    // The last notification may be handled after the result arrived; what came before it is streamed in order.
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas).toEqual(["progress 1/3\n", "progress 2/3\n", "progress 3/3\n"].slice(0, deltas.length));

    const created = await harness.runtime.createConversation({ text: '[[tool:mcp__everything__trigger-long-running-operation {"duration":60,"steps":60}]]' });
    const id = created.conversation.id;
    await harness.waitForEvent(id, "item.delta", (event) => event.field === "output" && event.delta === "progress 1/60\n", 10_000);
    const started = Date.now();
    await harness.runtime.interrupt(id);
    const turn = await harness.turnEnded(id, created.turn.id);
    expect(turn.status).toBe("interrupted");
    expect(Date.now() - started).toBeLessThan(15_000);
    const interrupted = harness.items(id).find((item) => item.kind === "tool_call")!;
    expect(interrupted.status).toBe("interrupted");
    // The server is still usable after the cancellation.
    const after = await run(harness, '[[tool:mcp__everything__get-sum {"a":1,"b":1}]]');
    expect(after.calls[0].output).toBe("The sum of 1 and 1 is 2.");
  });

  it("fails a call clearly when the server dies during it, and the next call restarts the server", async () => {
    const marker = `--atrium-test-${randomUUID()}`;
    harness = await startHarness({ mcpServers: { everything: { ...everythingStdio([marker]), approval: "auto" } } });
    const firstPid = pidWith(marker);
    expect(firstPid).not.toBeNull();
    const created = await harness.runtime.createConversation({ text: '[[tool:mcp__everything__trigger-long-running-operation {"duration":60,"steps":60}]]' });
    const id = created.conversation.id;
    await harness.waitForEvent(id, "item.delta", (event) => event.field === "output" && event.delta === "progress 1/60\n", 10_000);
    process.kill(firstPid!, "SIGKILL");
    const turn = await harness.turnEnded(id, created.turn.id);
    expect(turn.status).toBe("completed");
    const failed = harness.items(id).find((item) => item.kind === "tool_call")!;
    expect(failed.status).toBe("failed");
    expect(failed.output).toContain('The MCP server "everything" stopped during this call');
    expect(harness.runtime.extensions.servers()[0].status).not.toBe("connected");

    const after = await run(harness, '[[tool:mcp__everything__echo {"message":"back"}]]');
    expect(after.calls[0]).toMatchObject({ status: "completed", output: "Echo: back" });
    const secondPid = pidWith(marker);
    expect(secondPid).not.toBeNull();
    expect(secondPid).not.toBe(firstPid);
    expect(harness.runtime.extensions.servers()[0].status).toBe("connected");
  });

  it("asks before an MCP tool by default, and a server-level policy can make it automatic", async () => {
    harness = await startHarness({ mcpServers: { everything: { ...everythingStdio(), tools: { "get-sum": "auto" } } } });
    const auto = await run(harness, '[[tool:mcp__everything__get-sum {"a":3,"b":4}]]');
    expect(auto.calls[0].output).toBe("The sum of 3 and 4 is 7.");
    const created = await harness.runtime.createConversation({ text: '[[tool:mcp__everything__echo {"message":"needs a yes"}]]' });
    const requested = await harness.waitForEvent(created.conversation.id, "approval.requested");
    expect(requested.approval.toolName).toBe("mcp__everything__echo");
    await harness.runtime.decideApproval(requested.approval.id, "deny");
    await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(harness.items(created.conversation.id).find((item) => item.kind === "tool_call")!.status).toBe("denied");
  });

  it("offers a catalog and load_tools when the schemas exceed the tool budget", async () => {
    harness = await startHarness({ toolSchemaTokens: 100, mcpServers: { everything: { ...everythingStdio(), approval: "auto" } } });
    const { id, calls } = await run(harness, '[[tool:load_tools {"names":["mcp__everything__get-sum"]}]] [[tool:mcp__everything__get-sum {"a":5,"b":5}]]');
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(calls[1].output).toBe("The sum of 5 and 5 is 10.");
    const actor = harness.runtime.actor(id);
    const request = nextRequest(actor, actor.root);
    const names = request.tools.map((tool) => tool.name);
    expect(names).toContain("load_tools");
    expect(names).toContain("mcp__everything__get-sum");
    expect(names).not.toContain("mcp__everything__echo");
    expect(request.system).toContain("- everything / echo (mcp__everything__echo): Echoes back the input string");
    expect(request.system).not.toContain("(mcp__everything__get-sum)");

    const fresh = await harness.runtime.createConversation({ text: "hello" });
    await harness.turnEnded(fresh.conversation.id, fresh.turn.id);
    const freshActor = harness.runtime.actor(fresh.conversation.id);
    expect(nextRequest(freshActor, freshActor.root).tools.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
  });

  it("reports a server that fails to start, keeps retrying, and never stops the runtime", async () => {
    harness = await startHarness({
      mcpServers: {
        broken: { command: process.execPath, args: ["-e", "console.error('no database configured'); process.exit(3)"] },
        everything: { ...everythingStdio(), approval: "auto" },
      },
    });
    const broken = harness.runtime.extensions.servers().find((server) => server.name === "broken")!;
    expect(broken.status).toBe("failed");
    expect(broken.error).toContain("no database configured");
    expect(broken.toolCount).toBe(0);
    const { calls } = await run(harness, '[[tool:mcp__everything__echo {"message":"still fine"}]]');
    expect(calls[0].output).toBe("Echo: still fine");
  });
});

describe("MCP: server-everything over Streamable HTTP", () => {
  it("connects by URL and calls its tools, with progress", async () => {
    const server = await startEverythingHttp();
    stops.push(server.stop);
    harness = await startHarness({ mcpServers: { web: { url: server.url, approval: "auto" } } });
    await waitUntil(() => harness!.runtime.extensions.servers()[0].status === "connected", "the HTTP server connects", 10_000);
    expect(harness.runtime.extensions.servers()[0].transport).toBe("http");
    const { id, calls } = await run(
      harness,
      '[[tool:mcp__web__get-sum {"a":20,"b":22}]] [[tool:mcp__web__trigger-long-running-operation {"duration":0.2,"steps":2}]]',
    );
    expect(calls[0]).toMatchObject({ status: "completed", output: "The sum of 20 and 22 is 42." });
    expect(calls[1].status).toBe("completed");
    const deltas = harness.events(id, "item.delta").filter((event) => event.itemId === calls[1].id).map((event) => event.delta);
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(deltas).toEqual(["progress 1/2\n", "progress 2/2\n"].slice(0, deltas.length));
  });

  it("fails a call whose server goes away, and reconnects on the next call once it is back", async () => {
    const first = await startEverythingHttp();
    stops.push(first.stop);
    harness = await startHarness({ mcpServers: { web: { url: first.url, approval: "auto" } } });
    await waitUntil(() => harness!.runtime.extensions.servers()[0].status === "connected", "the HTTP server connects", 10_000);
    const created = await harness.runtime.createConversation({ text: '[[tool:mcp__web__trigger-long-running-operation {"duration":60,"steps":60}]]' });
    const id = created.conversation.id;
    await harness.waitForEvent(id, "item.delta", (event) => event.field === "output" && event.delta === "progress 1/60\n", 10_000);
    await first.stop();
    await harness.turnEnded(id, created.turn.id, 20_000);
    const failed = harness.items(id).find((item) => item.kind === "tool_call")!;
    expect(failed.status).toBe("failed");
    expect(failed.output).toContain('The MCP server "web" stopped during this call');

    const second = await startEverythingHttp(first.port);
    stops.push(second.stop);
    const after = await run(harness, '[[tool:mcp__web__get-sum {"a":6,"b":7}]]');
    expect(after.calls[0]).toMatchObject({ status: "completed", output: "The sum of 6 and 7 is 13." });
  });
});
