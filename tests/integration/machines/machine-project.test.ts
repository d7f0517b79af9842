import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { fakeModelConfig } from "../../support/runtime-harness";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { addMachine, createOn, endedTurn, items, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

let scene: Scene;
let fake: FakeOpenAIServer;
let machine: MachineProcess;
let machineId: string;
let project: string;
let machineView: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  scene = await startGateway(undefined, undefined, fakeModelConfig(fake.url));
  // One path, two contents: the gateway sees its own folder there, the machine (its own mount namespace) another.
  project = path.join(scene.temp, "project");
  machineView = path.join(scene.temp, "machine-view");
  fs.mkdirSync(project);
  fs.mkdirSync(machineView);
  fs.writeFileSync(path.join(project, "AGENTS.md"), "GATEWAY-RULES: this file is on the gateway's host\n");
  fs.writeFileSync(path.join(machineView, "AGENTS.md"), "MACHINE-RULES: this file is on the machine\n");
  writeSkill(project, "gateway-skill", "A skill only the gateway's host has.", "GATEWAY-SKILL-BODY");
  writeSkill(machineView, "machine-skill", "A skill only the machine has.", "MACHINE-SKILL-BODY");
  fs.writeFileSync(path.join(machineView, ".atrium", "skills", "machine-skill", "notes.md"), "notes\n");
  fs.mkdirSync(path.join(machineView, ".atrium", "skills", "broken"));
  fs.writeFileSync(path.join(machineView, ".atrium", "skills", "broken", "SKILL.md"), "no front matter here\n");
  writeAgent(project, "gateway-agent", "GATEWAY-AGENT-RULES");
  writeAgent(machineView, "machine-agent", "MACHINE-AGENT-RULES");
  const added = await addMachine(scene.server, "viewer");
  machineId = added.machine.id;
  machine = startMachineProcess({ url: scene.server.url, token: added.token, home: path.join(scene.temp, "viewer-home"), roots: [project], view: { source: machineView, target: project } });
  await machineStatus(scene.server, machineId, "online");
}, 90_000);

afterAll(async () => {
  await machine?.stop();
  await scene?.cleanup();
  await fake?.close();
});

function writeSkill(root: string, name: string, description: string, body: string): void {
  fs.mkdirSync(path.join(root, ".atrium", "skills", name), { recursive: true });
  fs.writeFileSync(path.join(root, ".atrium", "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

function writeAgent(root: string, name: string, instructions: string): void {
  fs.mkdirSync(path.join(root, ".atrium", "agents"), { recursive: true });
  fs.writeFileSync(path.join(root, ".atrium", "agents", `${name}.md`), `---\nname: ${name}\ndescription: ${name} for tests\n---\n${instructions}\n`);
}

function tool(name: string, input: Record<string, unknown>): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

function systemText(body: { messages?: Array<{ role: string; content: unknown }> }): string {
  return (body.messages ?? []).filter((message) => message.role === "system").map((message) => JSON.stringify(message.content)).join("\n");
}

describe("project files from the machine (DESIGN §4, §10b)", () => {
  it("puts the machine's AGENTS.md in the request, not the file the gateway has at that path", async () => {
    const created = await (await createOn(scene.server, { text: "hello", machine: machineId, cwd: project })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const system = systemText(fake.requests.at(-1)!.body);
    expect(system).toContain("MACHINE-RULES");
    expect(system).not.toContain("GATEWAY-RULES");
  });

  it("a local conversation in the same folder reads the gateway's own AGENTS.md", async () => {
    const created = await (await createOn(scene.server, { text: "hello", cwd: project })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const system = systemText(fake.requests.at(-1)!.body);
    expect(system).toContain("GATEWAY-RULES");
    expect(system).not.toContain("MACHINE-RULES");
  });

  it("offers the machine's project skills in the catalog, not the gateway's, and skips a bad one", async () => {
    const created = await (await createOn(scene.server, { text: "which skills?", machine: machineId, cwd: project })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const system = systemText(fake.requests.at(-1)!.body);
    expect(system).toContain("machine-skill");
    expect(system).not.toContain("gateway-skill");
    expect(system).not.toContain("broken");
    const overview = await (await scene.server.api(`/api/tools?cwd=${encodeURIComponent(project)}&machine=${machineId}`)).json();
    const projectSkills = overview.skills.filter((skill: { source: string }) => skill.source === "project");
    expect(projectSkills).toEqual([{ name: "machine-skill", description: "A skill only the machine has.", source: "project", path: path.join(project, ".atrium", "skills", "machine-skill", "SKILL.md") }]);
    const local = await (await scene.server.api(`/api/tools?cwd=${encodeURIComponent(project)}`)).json();
    expect(local.skills.map((skill: { name: string }) => skill.name)).toContain("gateway-skill");
    const unknown = await scene.server.api(`/api/tools?cwd=${encodeURIComponent(project)}&machine=01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    expect(unknown.status).toBe(404);
  });

  it("load_skill returns the machine's skill with the files beside it, and does not know the gateway's; a local conversation there gets the gateway's", async () => {
    const text = `${tool("load_skill", { name: "machine-skill" })}${tool("load_skill", { name: "gateway-skill" })}done`;
    const created = await (await createOn(scene.server, { text, model: "offline", machine: machineId, cwd: project })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const [machineSkill, gatewaySkill] = toolCalls(await items(scene.server, created.conversation.id));
    expect(machineSkill).toMatchObject({ status: "completed" });
    expect(machineSkill.output).toContain("MACHINE-SKILL-BODY");
    expect(machineSkill.output).toContain(path.join(project, ".atrium", "skills", "machine-skill", "notes.md"));
    expect(gatewaySkill).toMatchObject({ status: "failed" });
    expect(gatewaySkill.output).toContain('No skill named "gateway-skill"');

    // The same calls in a local conversation at the same path: the gateway's skill, and not the machine's.
    const local = await (await createOn(scene.server, { text, model: "offline", cwd: project })).json();
    expect((await endedTurn(scene.server, local.turn.id)).status).toBe("completed");
    const [machineHere, gatewayHere] = toolCalls(await items(scene.server, local.conversation.id));
    expect(machineHere).toMatchObject({ status: "failed" });
    expect(machineHere.output).toContain('No skill named "machine-skill"');
    expect(gatewayHere).toMatchObject({ status: "completed" });
    expect(gatewayHere.output).toContain("GATEWAY-SKILL-BODY");
  });

  it("finds project agents on the machine: one defined only there starts, one only on the gateway is missing", async () => {
    const onMachine = await createOn(scene.server, { text: "hello", agent: "machine-agent", machine: machineId, cwd: project });
    expect(onMachine.status).toBe(201);
    const created = await onMachine.json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    expect(systemText(fake.requests.at(-1)!.body)).toContain("MACHINE-AGENT-RULES");
    const gatewayOnly = await createOn(scene.server, { text: "hello", agent: "gateway-agent", machine: machineId, cwd: project });
    expect(gatewayOnly.status).toBe(422);
    expect((await gatewayOnly.json()).error.code).toBe("missing_agent");
    const local = await createOn(scene.server, { text: "hello", agent: "gateway-agent", cwd: project });
    expect(local.status).toBe(201);
    await endedTurn(scene.server, (await local.json()).turn.id);
  });

  it("reads the project again after a call that changed files: a skill the agent wrote is offered in the next step", async () => {
    const script = "mkdir -p .atrium/skills/fresh && printf -- '---\\nname: fresh\\ndescription: Written by the agent.\\n---\\nFRESH-BODY\\n' > .atrium/skills/fresh/SKILL.md";
    fake.enqueue({ type: "tool_call", name: "shell", arguments: { command: script } }, { type: "text", text: "done" });
    const before = fake.requests.length;
    const created = await (await createOn(scene.server, { text: "write a skill", machine: machineId, cwd: project })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const [call] = toolCalls(await items(scene.server, created.conversation.id));
    expect(call).toMatchObject({ status: "completed" });
    expect(fs.existsSync(path.join(machineView, ".atrium", "skills", "fresh", "SKILL.md"))).toBe(true);
    const [first, second] = fake.requests.slice(before).map((request) => systemText(request.body));
    expect(first).not.toContain("fresh");
    expect(second).toContain("fresh");
  });

  it("the folder browser lists a linked machine's folders as the machine sees them, never the gateway's, and only under its roots", async () => {
    fs.mkdirSync(path.join(project, "gateway-only"));
    fs.mkdirSync(path.join(machineView, "machine-only", "deeper"), { recursive: true });
    const top = await scene.server.api(`/api/folders?machine=${machineId}`);
    expect(top.status).toBe(200);
    const listing = await top.json();
    expect(listing).toMatchObject({ machine: machineId, path: project, parent: null, truncated: false });
    expect(listing.folders.map((folder: { name: string }) => folder.name)).toEqual(["machine-only"]);
    const inner = await (await scene.server.api(`/api/folders?machine=${machineId}&path=${encodeURIComponent(path.join(project, "machine-only"))}`)).json();
    expect(inner).toMatchObject({ parent: project, folders: [{ name: "deeper", path: path.join(project, "machine-only", "deeper") }] });
    const outside = await scene.server.api(`/api/folders?machine=${machineId}&path=${encodeURIComponent(scene.temp)}`);
    expect(outside.status).toBe(400);
    expect((await outside.json()).error.code).toBe("cwd_outside_roots");
    const missing = await scene.server.api(`/api/folders?machine=${machineId}&path=${encodeURIComponent(path.join(project, "gateway-only"))}`);
    expect(missing.status).toBe(400);
  });
});

