import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness;
let fake: FakeOpenAIServer | null = null;
afterEach(async () => {
  await harness?.close();
  await fake?.close();
});

function writeAgents(home: string): void {
  const folder = path.join(home, "agents");
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code changes for bugs.\nmodel: offline\ntools: [read_file, list_dir]\n---\nYou review code. Be terse.\n");
  fs.writeFileSync(path.join(folder, "writer.md"), "---\nname: writer\ndescription: Writes documentation.\n---\nYou write docs.\n");
  fs.writeFileSync(path.join(folder, "broken.md"), "---\nname: Broken Name!\ndescription: 3\n---\nnothing\n");
}

describe("agent definitions", () => {
  it("loads valid definitions, reports and skips a bad one, and always has default", async () => {
    const temp = makeTempHome();
    writeAgents(temp.home);
    const logged: string[] = [];
    harness = await startHarness({}, temp.home);
    const names = harness.runtime.listAgents().map((agent) => agent.name).sort();
    expect(names).toEqual(["default", "reviewer", "writer"]);
    expect(harness.runtime.listAgents().find((agent) => agent.name === "reviewer")).toEqual({
      name: "reviewer",
      description: "Reviews code changes for bugs.",
      model: "offline",
      tools: ["read_file", "list_dir"],
    });
    harness.runtime.reloadAgents((line) => logged.push(line));
    expect(logged.join("\n")).toMatch(/broken\.md skipped: name: /);
  });

  it("lets the model pick an agent from the descriptions in spawn_agent", async () => {
    const temp = makeTempHome();
    writeAgents(temp.home);
    fake = await startFakeOpenAIServer();
    harness = await startHarness(
      { models: [{ id: "fake", provider: "openai-compatible", baseURL: fake.url, model: "fake-model" }], defaultModel: "fake" },
      temp.home,
    );
    fake.enqueue({ type: "tool_call", name: "spawn_agent", arguments: { task: "review the diff", agent: "reviewer" } }, { type: "text", text: "spawned" });
    const created = await harness.runtime.createConversation({ text: "please get this reviewed" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const tools = fake.requests[0].body.tools as Array<{ function: { name: string; description: string } }>;
    const spawn = tools.find((tool) => tool.function.name === "spawn_agent")!;
    expect(spawn.function.description).toContain("- reviewer: Reviews code changes for bugs.");
    expect(spawn.function.description).toContain("- writer: Writes documentation.");
    const child = await pollUntil(() => harness.runtime.listSessions(id).find((session) => session.parentSessionId), { what: "the child" });
    expect(child.agent).toBe("reviewer");
    expect(child.model).toBe("offline");
    await pollUntil(() => harness.runtime.listItems(id, { session: child.id }).items.some((item) => item.text === "You said: review the diff"), {
      what: "the reviewer's answer",
    });
  });
});
