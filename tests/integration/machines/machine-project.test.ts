import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { fakeModelConfig } from "../../support/runtime-harness";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { addMachine, createOn, endedTurn, machineStatus, startGateway, type Scene } from "./machine-fixture";

let scene: Scene;
let fake: FakeOpenAIServer;
let machine: MachineProcess;
let machineId: string;
let project: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  scene = await startGateway(undefined, undefined, fakeModelConfig(fake.url));
  // One path, two contents: the gateway sees its own folder there, the machine (its own mount namespace) another.
  project = path.join(scene.temp, "project");
  const machineView = path.join(scene.temp, "machine-view");
  fs.mkdirSync(project);
  fs.mkdirSync(machineView);
  fs.writeFileSync(path.join(project, "AGENTS.md"), "GATEWAY-RULES: this file is on the gateway's host\n");
  fs.writeFileSync(path.join(machineView, "AGENTS.md"), "MACHINE-RULES: this file is on the machine\n");
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
});
