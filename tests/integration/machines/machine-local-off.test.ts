import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOn, endedTurn, items, linkMachine, startGateway, toolCalls, type Scene } from "./machine-fixture";

/** DESIGN §10b: config `machines.local: false` turns the built-in machine (the gateway's own host) off. */
let scene: Scene;
let laptop: Awaited<ReturnType<typeof linkMachine>>;

beforeAll(async () => {
  scene = await startGateway(undefined, undefined, { machines: { local: false } });
  laptop = await linkMachine(scene, "laptop");
}, 90_000);

afterAll(async () => {
  await laptop?.process.stop();
  await scene?.cleanup();
});

async function conversationCount(): Promise<number> {
  const directory = path.join(scene.gatewayHome, "conversations");
  return fs.existsSync(directory) ? fs.readdirSync(directory).length : 0;
}

describe("the built-in machine turned off (machines.local: false)", () => {
  it("is not listed, cannot be fetched and cannot be removed", async () => {
    const { machines } = await (await scene.server.api("/api/machines")).json();
    expect(machines.map((machine: { id: string }) => machine.id)).toEqual([laptop.id]);
    const fetched = await scene.server.api("/api/machines/local");
    expect(fetched.status).toBe(404);
    expect((await fetched.json()).error.code).toBe("not_found");
    const removal = await scene.server.api("/api/machines/local", { method: "DELETE" });
    expect(removal.status).toBe(400);
    expect((await removal.json()).error.message).toContain("machines.local");
  });

  it("refuses work on the gateway's host with 409 machine_offline and records nothing, whether named or by default", async () => {
    const before = await conversationCount();
    for (const body of [{ text: "hi" }, { text: "hi", machine: "local" }, { text: '[[tool:shell {"command":"echo here"}]]', cwd: scene.temp }]) {
      const refused = await createOn(scene.server, body);
      expect(refused.status).toBe(409);
      expect((await refused.json()).error.code).toBe("machine_offline");
    }
    expect(await conversationCount()).toBe(before);
    const { conversations } = await (await scene.server.api("/api/conversations")).json();
    expect(conversations).toEqual([]);
  });

  it("still runs conversations on a linked machine, and a move to the gateway's host is refused", async () => {
    const created = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo home=$HOME"}]]', machine: laptop.id })).json();
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(scene.server, created.conversation.id))[0].output).toBe(`home=${laptop.process.home}\n`);
    const move = await scene.server.api(`/api/conversations/${created.conversation.id}`, { method: "PATCH", body: JSON.stringify({ machine: "local", cwd: scene.temp }) });
    expect(move.status).toBe(409);
    expect((await move.json()).error.code).toBe("machine_offline");
    const { conversation } = await (await scene.server.api(`/api/conversations/${created.conversation.id}`)).json();
    expect(conversation.machine).toBe(laptop.id);
  });
});
