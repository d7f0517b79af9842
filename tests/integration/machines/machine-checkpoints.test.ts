import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOn, endedTurn, linkMachine, startGateway, type Scene } from "./machine-fixture";

let scene: Scene;
let laptop: Awaited<ReturnType<typeof linkMachine>>;

beforeAll(async () => {
  scene = await startGateway();
  laptop = await linkMachine(scene, "laptop");
}, 90_000);

afterAll(async () => {
  await laptop?.process.stop();
  await scene?.cleanup();
});

function tool(name: string, input: Record<string, unknown>): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

// The same scenario on the built-in machine and on the linked one: checkpoints and rewind with files work alike on both.
describe.each(["local", "laptop"])("checkpoints on %s (DESIGN §10b)", (where) => {
  it("a turn's changes and a rewind with restoreFiles act on that machine's files, with the snapshots kept on that machine", async () => {
    const onLaptop = where === "laptop";
    const cwd = onLaptop ? laptop.root : fs.realpathSync(fs.mkdtempSync(path.join(scene.temp, "local-work-")));
    const target = onLaptop ? { machine: laptop.id } : { cwd };
    const gatewaySnapshots = path.join(scene.gatewayHome, "snapshots");
    const gatewayBefore = fs.existsSync(gatewaySnapshots) ? fs.readdirSync(gatewaySnapshots) : [];
    const created = await (await createOn(scene.server, { text: tool("write_file", { path: "plan.txt", content: "one\n" }), ...target })).json();
    const id = created.conversation.id;
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const second = await (
      await scene.server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: tool("edit_file", { path: "plan.txt", old: "one", new: "two" }) }) })
    ).json();
    expect((await endedTurn(scene.server, second.turn.id)).status).toBe("completed");
    expect(fs.readFileSync(path.join(cwd, "plan.txt"), "utf8")).toBe("two\n");

    const changes = await (await scene.server.api(`/api/turns/${second.turn.id}/changes`)).json();
    expect(changes.files).toEqual([{ path: "plan.txt", status: "modified", additions: 1, deletions: 1 }]);
    expect(changes.diff).toContain("+two");

    const rewound = await scene.server.api(`/api/conversations/${id}/rewind`, { method: "POST", body: JSON.stringify({ itemId: second.message.id, restoreFiles: true }) });
    expect(rewound.status).toBe(201);
    const body = await rewound.json();
    expect(body.restored).toEqual(["plan.txt"]);
    expect(body.conversation.machine).toBe(onLaptop ? laptop.id : "local");
    expect(fs.readFileSync(path.join(cwd, "plan.txt"), "utf8")).toBe("one\n");

    const gatewayAfter = fs.existsSync(gatewaySnapshots) ? fs.readdirSync(gatewaySnapshots) : [];
    if (onLaptop) {
      // The snapshot git dirs are in the machine's own data directory, none new in the gateway's.
      const machineSnapshots = path.join(laptop.process.home, ".local", "share", "atrium", "snapshots");
      expect(fs.readdirSync(machineSnapshots).some((entry) => entry.endsWith(".git"))).toBe(true);
      expect(gatewayAfter).toEqual(gatewayBefore);
    } else {
      expect(gatewayAfter.length).toBeGreaterThan(gatewayBefore.length);
    }
  });

  it("Revert to before this turn puts one file back on the machine, asking first when it changed outside Atrium", async () => {
    const created = await (await createOn(scene.server, { text: tool("write_file", { path: "keep.txt", content: "kept\n" }) + tool("write_file", { path: "undo.txt", content: "first\n" }), machine: laptop.id })).json();
    const id = created.conversation.id;
    expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
    const second = await (
      await scene.server.api(`/api/conversations/${id}/messages`, {
        method: "POST",
        body: JSON.stringify({ text: tool("edit_file", { path: "undo.txt", old: "first", new: "second" }) + tool("edit_file", { path: "keep.txt", old: "kept", new: "kept too" }) }),
      })
    ).json();
    expect((await endedTurn(scene.server, second.turn.id)).status).toBe("completed");
    fs.writeFileSync(path.join(laptop.root, "undo.txt"), "the owner's edit\n");

    const revert = (body: object) => scene.server.api(`/api/turns/${second.turn.id}/revert`, { method: "POST", body: JSON.stringify(body) });
    const refused = await revert({ path: "undo.txt" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: "files_changed_outside", files: ["undo.txt"] } });
    expect(fs.readFileSync(path.join(laptop.root, "undo.txt"), "utf8")).toBe("the owner's edit\n");
    const forced = await revert({ path: "undo.txt", force: true });
    expect(forced.status).toBe(200);
    expect(await forced.json()).toEqual({ restored: ["undo.txt"] });
    expect(fs.readFileSync(path.join(laptop.root, "undo.txt"), "utf8")).toBe("first\n");
    expect(fs.readFileSync(path.join(laptop.root, "keep.txt"), "utf8")).toBe("kept too\n");

    // More context comes through the link too.
    const wide = await (await scene.server.api(`/api/turns/${second.turn.id}/changes?context=50`)).json();
    expect(wide.diff).toContain("@@ -1 +1 @@");
  });
});

