import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSse, type SseConnection } from "../../support/sse-client";
import { createOn, endedTurn, items, linkMachine, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

let scene: Scene;
let laptop: Awaited<ReturnType<typeof linkMachine>>;
let listEvents: SseConnection;

beforeAll(async () => {
  scene = await startGateway();
  listEvents = await connectSse(`${scene.server.url}/api/events`, { authorization: `Bearer ${scene.server.token}` });
  laptop = await linkMachine(scene, "laptop");
}, 90_000);

afterAll(async () => {
  listEvents?.close();
  await laptop?.process.stop();
  await scene?.cleanup();
});

function tool(name: string, input: Record<string, unknown>): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

describe("machines over HTTP (DESIGN §10b)", () => {
  it("lists the built-in machine first, shows the token once and keeps only its hash", async () => {
    const { machines } = await (await scene.server.api("/api/machines")).json();
    expect(machines[0]).toMatchObject({ id: "local", name: "local", builtin: true, status: "online" });
    // The built-in machine's id is a name, not a ULID: it is still fetched by it, and cannot be revoked.
    expect((await (await scene.server.api("/api/machines/local")).json()).machine).toMatchObject({ id: "local", builtin: true });
    const removeLocal = await scene.server.api("/api/machines/local", { method: "DELETE" });
    expect(removeLocal.status).toBe(400);
    expect((await removeLocal.json()).error.message).toContain("machines.local");
    const listed = machines.find((machine: { id: string }) => machine.id === laptop.id);
    expect(listed).toMatchObject({ name: "laptop", builtin: false, status: "online", roots: [laptop.root], platform: `${process.platform}-${process.arch}` });
    expect(listed.sandbox).toMatch(/^workspace-write/);
    expect(listed).not.toHaveProperty("token");
    const stored = fs.readFileSync(path.join(scene.gatewayHome, "machines.json"), "utf8");
    expect(stored).not.toContain(laptop.token);
    expect((fs.statSync(path.join(scene.gatewayHome, "machines.json")).mode & 0o777).toString(8)).toBe("600");
    const online = await listEvents.waitFor((event) => event.event === "machine.updated" && JSON.parse(event.data).machine.id === laptop.id && JSON.parse(event.data).machine.status === "online");
    expect(JSON.parse(online.data).type).toBe("machine.updated");
  });

  it("atrium machine add asks the running server for a machine and prints its connect command with the token", async () => {
    const { spawnSync } = await import("node:child_process");
    const bin = path.resolve(import.meta.dirname, "..", "..", "..", "bin", "atrium.mjs");
    const environment: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scene.temp, ATRIUM_HOME: scene.gatewayHome, ATRIUM_TOKEN: scene.server.token };
    const result = spawnSync(process.execPath, [bin, "machine", "add", "from-cli"], { env: environment as NodeJS.ProcessEnv, encoding: "utf8", timeout: 30_000 });
    expect(result.status).toBe(0);
    const token = /ATRIUM_MACHINE_TOKEN=(\S+) atrium machine connect (\S+)/.exec(result.stdout);
    expect(token?.[2]).toBe(scene.server.url);
    const { machines } = await (await scene.server.api("/api/machines")).json();
    expect(machines.map((machine: { name: string }) => machine.name)).toContain("from-cli");
    expect(fs.readFileSync(path.join(scene.gatewayHome, "machines.json"), "utf8")).not.toContain(token![1]);
  });

  it("answers bad machine requests with 4xx and the error shape", async () => {
    const badName = await scene.server.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "no spaces" }) });
    expect(badName.status).toBe(400);
    expect((await badName.json()).error.code).toBe("bad_request");
    const clash = await scene.server.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "laptop" }) });
    expect(clash.status).toBe(400);
    const relativeRoot = await scene.server.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "x", roots: ["here"] }) });
    expect(relativeRoot.status).toBe(400);
    const unknown = await scene.server.api("/api/machines/01ARZ3NDEKTSV4RRFFQ69G5FAV", { method: "DELETE" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
    const unknownMachine = await createOn(scene.server, { text: "hi", machine: "01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expect(unknownMachine.status).toBe(404);
  });

  it("checks a conversation's cwd on the machine: outside the roots, missing, or a symlink out", async () => {
    const outside = await createOn(scene.server, { text: "hi", machine: laptop.id, cwd: path.dirname(laptop.root) });
    expect(outside.status).toBe(400);
    expect((await outside.json()).error.code).toBe("cwd_outside_roots");
    const dotted = await createOn(scene.server, { text: "hi", machine: laptop.id, cwd: `${laptop.root}/../home` });
    expect(dotted.status).toBe(400);
    const missing = await createOn(scene.server, { text: "hi", machine: laptop.id, cwd: path.join(laptop.root, "nowhere") });
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.code).toBe("missing_cwd");
    // Lexically inside the root, really outside: only the machine, following the link, can tell.
    fs.symlinkSync(path.dirname(laptop.root), path.join(laptop.root, "escape"));
    const linked = await createOn(scene.server, { text: "hi", machine: laptop.id, cwd: path.join(laptop.root, "escape") });
    expect(linked.status).toBe(400);
    expect((await linked.json()).error.code).toBe("cwd_outside_roots");
  });

  // The same scenario on the built-in machine and on the linked one: a conversation on a machine does what a local one does.
  it.each(["local", "laptop"])("runs every machine tool on %s, in that machine's HOME and cwd", async (where) => {
    const onLaptop = where === "laptop";
    const cwd = onLaptop ? laptop.root : fs.realpathSync(fs.mkdtempSync(path.join(scene.temp, "local-work-")));
    const home = onLaptop ? laptop.process.home : process.env.HOME;
    const text = [
      tool("shell", { command: "echo home=$HOME; echo cwd=$(pwd)" }),
      tool("write_file", { path: "notes.txt", content: "alpha\nbeta\n" }),
      tool("edit_file", { path: "notes.txt", old: "beta", new: "gamma" }),
      tool("read_file", { path: "notes.txt" }),
      tool("list_dir", { path: "." }),
    ].join(" ");
    const response = await createOn(scene.server, { text, ...(onLaptop ? { machine: laptop.id } : { cwd }) });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created.conversation).toMatchObject({ machine: onLaptop ? laptop.id : "local", cwd });
    const turn = await endedTurn(scene.server, created.turn.id);
    expect(turn.status).toBe("completed");
    const calls = toolCalls(await items(scene.server, created.conversation.id));
    expect(calls.map((call) => [call.toolName, call.status])).toEqual([
      ["shell", "completed"],
      ["write_file", "completed"],
      ["edit_file", "completed"],
      ["read_file", "completed"],
      ["list_dir", "completed"],
    ]);
    expect(calls[0].output).toContain(`home=${home}`);
    expect(calls[0].output).toContain(`cwd=${cwd}`);
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
    expect(calls[3].output).toContain("gamma");
    expect(calls[4].output).toContain("notes.txt");
    const metadata = fs.readFileSync(path.join(scene.gatewayHome, "conversations", created.conversation.id, "metadata.jsonl"), "utf8");
    expect(JSON.parse(metadata.split("\n")[0])).toMatchObject({ type: "conversation.created", executor: onLaptop ? laptop.id : "local" });
  });

  it("gives a shell on the machine a clean environment: never the machine's token, nor anything of the gateway's", async () => {
    const created = await (await createOn(scene.server, { text: tool("shell", { command: "env" }), machine: laptop.id })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const [call] = toolCalls(await items(scene.server, created.conversation.id));
    expect(call.output).toContain(`HOME=${laptop.process.home}`);
    expect(call.output).not.toContain(laptop.token);
    expect(call.output).not.toContain("ATRIUM_MACHINE_TOKEN");
    expect(call.output).not.toContain(scene.server.token);
    expect(call.output).not.toContain(scene.gatewayHome);
  });

  it("refuses paths outside the roots on the machine itself: .., absolute and symlinks", async () => {
    fs.writeFileSync(path.join(path.dirname(laptop.root), "secret.txt"), "outside\n");
    fs.symlinkSync(path.join(path.dirname(laptop.root), "secret.txt"), path.join(laptop.root, "link.txt"));
    const text = [
      tool("read_file", { path: "../secret.txt" }),
      tool("read_file", { path: path.join(path.dirname(laptop.root), "secret.txt") }),
      tool("read_file", { path: "link.txt" }),
      tool("write_file", { path: "../planted.txt", content: "x" }),
    ].join(" ");
    const created = await (await createOn(scene.server, { text, machine: laptop.id })).json();
    await endedTurn(scene.server, created.turn.id);
    const calls = toolCalls(await items(scene.server, created.conversation.id));
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      expect(call.status).toBe("failed");
      expect(call.output).toContain("Refused by the machine");
      expect(call.output).not.toContain("outside\n");
    }
    expect(fs.existsSync(path.join(path.dirname(laptop.root), "planted.txt"))).toBe(false);
  });

  it("streams shell output from the machine as it is produced", async () => {
    const created = await (
      await createOn(scene.server, { text: tool("shell", { command: "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second" }), machine: laptop.id })
    ).json();
    const stream = await connectSse(`${scene.server.url}/api/conversations/${created.conversation.id}/events`, { authorization: `Bearer ${scene.server.token}` });
    try {
      // "first" arrives while the command still waits for the file: it was streamed, not sent at the end.
      await stream.waitFor((event) => event.event === "item.delta" && JSON.parse(event.data).delta.includes("first"), 15_000);
      fs.writeFileSync(path.join(laptop.root, "go"), "");
      await endedTurn(scene.server, created.turn.id);
    } finally {
      stream.close();
    }
    const [call] = toolCalls(await items(scene.server, created.conversation.id));
    expect(call.output).toBe("first\nsecond\n");
  });

  it("moves an idle conversation between machines with PATCH {machine, cwd}", async () => {
    const created = await (await createOn(scene.server, { text: "hello", machine: laptop.id })).json();
    await endedTurn(scene.server, created.turn.id);
    const id = created.conversation.id;
    const outside = await scene.server.api(`/api/conversations/${id}`, { method: "PATCH", body: JSON.stringify({ machine: laptop.id, cwd: "/etc" }) });
    expect(outside.status).toBe(400);
    expect((await outside.json()).error.code).toBe("cwd_outside_roots");
    const local = fs.mkdtempSync(path.join(scene.temp, "local-"));
    const moved = await scene.server.api(`/api/conversations/${id}`, { method: "PATCH", body: JSON.stringify({ machine: "local", cwd: local }) });
    expect(moved.status).toBe(200);
    expect((await moved.json()).conversation).toMatchObject({ machine: "local", cwd: local });
    const back = await scene.server.api(`/api/conversations/${id}`, { method: "PATCH", body: JSON.stringify({ machine: laptop.id }) });
    expect((await back.json()).conversation).toMatchObject({ machine: laptop.id, cwd: laptop.root });
    const fork = await (await scene.server.api(`/api/conversations/${id}/fork`, { method: "POST", body: "{}" })).json();
    expect(fork.conversation.machine).toBe(laptop.id);
  });

  it("stops a shell call's process group on the machine when the turn is interrupted", async () => {
    const created = await (await createOn(scene.server, { text: tool("shell", { command: "sleep 4317" }), machine: laptop.id })).json();
    await machineStatus(scene.server, laptop.id, "online");
    const { pollUntil } = await import("../../support/poll");
    const { execFileSync } = await import("node:child_process");
    const running = () => {
      try {
        return execFileSync("pgrep", ["-f", "sleep 4317"]).toString().trim() !== "";
      } catch {
        return false;
      }
    };
    await pollUntil(() => running(), { what: "the sleep to start on the machine" });
    const busy = await scene.server.api(`/api/conversations/${created.conversation.id}`, { method: "PATCH", body: JSON.stringify({ machine: "local" }) });
    expect(busy.status).toBe(409);
    expect((await busy.json()).error.code).toBe("not_idle");
    await scene.server.api(`/api/conversations/${created.conversation.id}/interrupt`, { method: "POST", body: "{}" });
    const turn = await endedTurn(scene.server, created.turn.id);
    expect(turn.status).toBe("interrupted");
    await pollUntil(() => !running(), { what: "the sleep to be killed" });
    const [call] = toolCalls(await items(scene.server, created.conversation.id));
    expect(call.status).toBe("interrupted");
  });
});
