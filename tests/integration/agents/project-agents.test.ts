import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nextRequest } from "@/lib/context/context-usage";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function writeAgent(folder: string, name: string, description: string, instructions: string): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, `${name}.md`), `---\nname: ${name}\ndescription: ${description}\n---\n${instructions}\n`);
}

describe("project agents", () => {
  it("loads <cwd>/.atrium/agents beside $ATRIUM_HOME/agents, the project's winning by name, only for that project", async () => {
    harness = await startHarness();
    const project = path.join(harness.home, "project");
    writeAgent(path.join(harness.home, "agents"), "reviewer", "Home reviewer.", "HOME REVIEWER RULES");
    writeAgent(path.join(project, ".atrium", "agents"), "reviewer", "Project reviewer.", "PROJECT REVIEWER RULES");
    writeAgent(path.join(project, ".atrium", "agents"), "releaser", "Cuts releases.", "RELEASER RULES");
    harness.runtime.reloadAgents();

    const inProject = await harness.runtime.createConversation({ text: "hi", agent: "reviewer", cwd: project });
    await harness.turnEnded(inProject.conversation.id, inProject.turn.id);
    const actor = harness.runtime.actor(inProject.conversation.id);
    expect(nextRequest(actor, actor.root).system).toContain("PROJECT REVIEWER RULES");
    const releaser = await harness.runtime.createConversation({ text: "hi", agent: "releaser", cwd: project });
    expect((await harness.turnEnded(releaser.conversation.id, releaser.turn.id)).status).toBe("completed");
    expect(harness.runtime.listAgents({ cwd: project }).map((agent) => agent.name).sort()).toEqual(["default", "releaser", "reviewer"]);

    const elsewhere = await harness.runtime.createConversation({ text: "hi", agent: "reviewer" });
    await harness.turnEnded(elsewhere.conversation.id, elsewhere.turn.id);
    const other = harness.runtime.actor(elsewhere.conversation.id);
    expect(nextRequest(other, other.root).system).toContain("HOME REVIEWER RULES");
    await expect(harness.runtime.createConversation({ text: "hi", agent: "releaser" })).rejects.toMatchObject({ code: "missing_agent" });
  });
});
