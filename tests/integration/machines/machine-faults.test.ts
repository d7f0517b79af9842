import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEARTBEAT_MS } from "@/lib/machines/gateway-link";
import { startMachineProcess } from "../../support/machine-process";
import { pollUntil } from "../../support/poll";
import { addMachine, createOn, endedTurn, items, linkMachine, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

let scene: Scene;

beforeAll(async () => {
  scene = await startGateway();
}, 90_000);

afterAll(async () => {
  await scene?.cleanup();
});

function running(pattern: string): boolean {
  try {
    return execFileSync("pgrep", ["-f", pattern]).toString().trim() !== "";
  } catch {
    return false;
  }
}

describe("machine faults (DESIGN §10b)", () => {
  it("a machine killed during a shell call: the call ends interrupted, the turn fails machine_disconnected, sends answer 409 machine_offline and record nothing", async () => {
    const box = await linkMachine(scene, "doomed");
    const created = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo started; sleep 4411"}]]', machine: box.id })).json();
    const id = created.conversation.id;
    await pollUntil(() => running("sleep 4411"), { what: "the long call to start on the machine" });
    await pollUntil(async () => toolCalls(await items(scene.server, id))[0]?.output?.includes("started"), { what: "the call's first output to be streamed" });
    box.process.child.kill("SIGKILL");
    const turn = await endedTurn(scene.server, created.turn.id);
    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("machine_disconnected");
    expect(turn.error?.message).toContain("inspect before retrying");
    const [call] = toolCalls(await items(scene.server, id));
    expect(call.status).toBe("interrupted");
    expect(call.output).toContain("effects are unknown");
    // What the machine streamed before it died was acknowledged, and is kept.
    expect(call.output).toContain("started");
    const { conversation } = await (await scene.server.api(`/api/conversations/${id}`)).json();
    expect(conversation.status).toBe("idle");
    expect(conversation.missing).toContain("machine");
    await machineStatus(scene.server, box.id, "offline");

    const before = fs.readFileSync(path.join(scene.gatewayHome, "conversations", id, "metadata.jsonl"), "utf8");
    const itemCount = (await items(scene.server, id)).length;
    const refused = await scene.server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "again" }) });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe("machine_offline");
    const newOne = await createOn(scene.server, { text: "new", machine: box.id });
    expect(newOne.status).toBe(409);
    expect(fs.readFileSync(path.join(scene.gatewayHome, "conversations", id, "metadata.jsonl"), "utf8")).toBe(before);
    expect(await items(scene.server, id)).toHaveLength(itemCount);
    // The killed machine's sandbox dies with it (bwrap --die-with-parent); the test leaves nothing behind either way.
    if (running("sleep 4411")) execFileSync("pkill", ["-f", "sleep 4411"]);
  });

  it("revoking a machine cuts its link at once, and its token is refused afterwards", async () => {
    const box = await linkMachine(scene, "revoked");
    expect((await scene.server.api(`/api/machines/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await box.process.exited).toBe(1);
    expect(box.process.output()).toContain("revoked");
    const { machines } = await (await scene.server.api("/api/machines")).json();
    expect(machines.map((machine: { id: string }) => machine.id)).not.toContain(box.id);
    const again = startMachineProcess({ url: scene.server.url, token: box.token, home: path.join(scene.temp, "revoked", "home"), roots: [box.root] });
    expect(await again.exited).toBe(1);
    expect(again.output()).toContain("refused this token");
  });

  it("one token drives one link: a second process with it is refused while the first is linked", async () => {
    const box = await linkMachine(scene, "single");
    const twin = startMachineProcess({ url: scene.server.url, token: box.token, home: path.join(scene.temp, "single", "twin"), roots: [box.root] });
    try {
      await twin.waitForOutput(/another process is linked with this token/);
      const created = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo still-here"}]]', machine: box.id })).json();
      expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    } finally {
      await twin.stop();
      await box.process.stop();
    }
  });

  it("two gateways cannot share one token: another gateway refuses it", async () => {
    const { token } = await addMachine(scene.server, "elsewhere");
    const other = await startGateway(path.join(scene.temp, "other-gateway"));
    try {
      const root = fs.mkdtempSync(path.join(scene.temp, "elsewhere-"));
      const machine = startMachineProcess({ url: other.server.url, token, home: path.join(root, "home"), roots: [root] });
      expect(await machine.exited).toBe(1);
      expect(machine.output()).toContain("refused this token");
    } finally {
      await other.server.stop();
    }
  });

  it("a huge output on one machine does not stall another conversation", async () => {
    const box = await linkMachine(scene, "chatty");
    try {
      const command = "head -c 30000000 /dev/zero | tr '\\0' a; echo; while [ ! -e go ]; do sleep 0.05; done; echo done";
      const chatty = await (await createOn(scene.server, { text: `[[tool:shell ${JSON.stringify({ command })}]]`, machine: box.id })).json();
      await pollUntil(async () => (toolCalls(await items(scene.server, chatty.conversation.id))[0]?.output?.length ?? 0) > 0, { what: "the big output to start streaming" });
      const quiet = await (await createOn(scene.server, { text: "are you there?" })).json();
      expect((await endedTurn(scene.server, quiet.turn.id)).status).toBe("completed");
      // The big call is still running: the quiet conversation did not wait for it.
      expect((await (await scene.server.api(`/api/turns/${chatty.turn.id}`)).json()).turn.endedAt).toBeNull();
      fs.writeFileSync(path.join(box.root, "go"), "");
      expect((await endedTurn(scene.server, chatty.turn.id, 60_000)).status).toBe("completed");
      const [call] = toolCalls(await items(scene.server, chatty.conversation.id));
      expect(call.status).toBe("completed");
      expect(call.output!.length).toBeLessThan(1024 * 1024);
    } finally {
      await box.process.stop();
    }
  }, 90_000);

  it("a stalled machine (SIGSTOP mid-call) does not hold up conversations on other machines or on local", async () => {
    const slow = await linkMachine(scene, "stalled");
    const quick = await linkMachine(scene, "quick");
    try {
      const command = "echo started; while [ ! -e go ]; do sleep 0.05; done; echo done";
      const stuck = await (await createOn(scene.server, { text: `[[tool:shell ${JSON.stringify({ command })}]]`, machine: slow.id })).json();
      await pollUntil(async () => toolCalls(await items(scene.server, stuck.conversation.id))[0]?.output?.includes("started"), { what: "the call to start on the stalled machine" });
      slow.process.child.kill("SIGSTOP");
      const stoppedAt = Date.now();
      const onQuick = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo quick"}]]', machine: quick.id })).json();
      const onLocal = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo local"}]]' })).json();
      expect((await endedTurn(scene.server, onQuick.turn.id)).status).toBe("completed");
      expect((await endedTurn(scene.server, onLocal.turn.id)).status).toBe("completed");
      expect(toolCalls(await items(scene.server, onQuick.conversation.id))[0].output).toBe("quick\n");
      const open = (await (await scene.server.api(`/api/turns/${stuck.turn.id}`)).json()).turn.endedAt === null;
      // A link is cut no sooner than one heartbeat after the machine stops answering. On a loaded host the two
      // turns above may outlast half of it; the pause is then past what this test can hold, and it stops here.
      if (Date.now() - stoppedAt > HEARTBEAT_MS / 2) {
        console.warn(`the other turns took ${Date.now() - stoppedAt} ms: the stalled call's own ending is not checked this run`);
        return;
      }
      // The stalled machine's call is still open, not failed: within the heartbeat's grace, a pause is not a loss.
      expect(open).toBe(true);
      slow.process.child.kill("SIGCONT");
      fs.writeFileSync(path.join(slow.root, "go"), "");
      expect((await endedTurn(scene.server, stuck.turn.id)).status).toBe("completed");
      expect(toolCalls(await items(scene.server, stuck.conversation.id))[0].output).toBe("started\ndone\n");
    } finally {
      slow.process.child.kill("SIGCONT");
      await slow.process.stop();
      await quick.process.stop();
    }
  }, 90_000);
});
