import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess } from "../../support/server-process";
import { createOn, endedTurn, items, linkMachine, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

/** A fixed port: the machine redials the address it was given, so the restarted gateway must listen there again. */
const PORT = 3247;
let scene: Scene;

afterAll(async () => {
  await scene?.cleanup();
});

describe("a gateway restart (DESIGN §10b)", () => {
  it("the machine reconnects by itself and serves the same conversations", async () => {
    scene = await startGateway(undefined, PORT);
    const box = await linkMachine(scene, "steady");
    try {
      await box.process.waitForOutput(/connected to /);
      await scene.server.stop();
      await box.process.waitForOutput(/dialling again/);
      scene.server = await startServerProcess(scene.gatewayHome, { PORT: String(PORT) });
      await box.process.waitForOutput(/connected to /, 2, 40_000);
      await machineStatus(scene.server, box.id, "online");
      const created = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo after-restart"}]]', machine: box.id })).json();
      expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
      expect(toolCalls(await items(scene.server, created.conversation.id))[0].output).toContain("after-restart");
      expect(path.isAbsolute(box.root)).toBe(true);
    } finally {
      await box.process.stop();
    }
  }, 120_000);
});
