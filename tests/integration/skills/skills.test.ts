import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/config";
import { nextRequest } from "@/lib/context/context-usage";
import { Runtime } from "@/lib/engine/runtime";
import { estimateTokens } from "@/lib/context/tokens";
import { Store } from "@/lib/store/store";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness | null = null;
let fake: FakeOpenAIServer | null = null;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await harness?.close();
  harness = null;
  await fake?.close();
  fake = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function writeSkill(root: string, name: string, description: string, body: string, files: Record<string, string> = {}): string {
  const folder = path.join(root, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, file), text);
  return folder;
}

function systemOf(body: { messages: Array<{ role: string; content: unknown }> }): string {
  return String(body.messages.find((message) => message.role === "system")?.content ?? "");
}

function chatRequests(server: FakeOpenAIServer) {
  return server.requests.filter((request) => request.path.endsWith("/chat/completions"));
}

async function fakeHarness(extra: Record<string, unknown> = {}, window = 32000): Promise<Harness> {
  fake = await startFakeOpenAIServer();
  harness = await startHarness({
    models: [{ id: "fake", provider: "openai-compatible", baseURL: fake.url, model: "fake-model", contextWindow: window, maxOutputTokens: 300 }],
    defaultModel: "fake",
    ...extra,
  });
  return harness;
}

describe("skills", () => {
  it("puts the catalog in every request and offers load_skill; the project's skill wins over the home one", async () => {
    const h = await fakeHarness();
    const project = path.join(h.home, "project");
    writeSkill(path.join(h.home, "skills"), "release-notes", "Write release notes from the git log (home version).", "HOME BODY");
    writeSkill(path.join(h.home, "skills"), "sql-review", "Review SQL migrations for locking problems.", "SQL BODY");
    writeSkill(path.join(project, ".atrium", "skills"), "release-notes", "Write release notes the project's way.", "PROJECT BODY");
    const created = await h.runtime.createConversation({ text: "hello", cwd: project });
    await h.turnEnded(created.conversation.id, created.turn.id);
    const body = chatRequests(fake!).at(-1)!.body;
    const system = systemOf(body);
    expect(system).toContain("- release-notes: Write release notes the project's way.");
    expect(system).toContain("- sql-review: Review SQL migrations for locking problems.");
    expect(system).not.toContain("home version");
    expect(body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain("load_skill");

    fake!.enqueue({ type: "tool_call", name: "load_skill", arguments: { name: "release-notes" } }, { type: "text", text: "loaded" });
    const second = await h.runtime.sendMessage(created.conversation.id, { text: "load the release notes skill", mode: "auto" });
    await h.turnEnded(created.conversation.id, second.turn!.id);
    const call = h.items(created.conversation.id).find((item) => item.toolName === "load_skill")!;
    expect(call.status).toBe("completed");
    expect(call.output).toContain("PROJECT BODY");
    expect(call.output).not.toContain("HOME BODY");
    // The catalog is sent again with the next step, not only with the first request.
    expect(systemOf(chatRequests(fake!).at(-1)!.body)).toContain("- sql-review:");
    // The context ring's popover reads what the catalogs take.
    expect(h.runtime.getContext(created.conversation.id).catalogTokens).toMatchObject({ skills: expect.any(Number), tools: 0 });
    expect(h.runtime.getContext(created.conversation.id).catalogTokens!.skills).toBeGreaterThan(20);
  });

  it("load_skill returns the body and names the folder, whose files read_file then reads", async () => {
    harness = await startHarness();
    const folder = writeSkill(path.join(harness.home, "skills"), "deploy", "Deploy the service.", "Follow checklist.md step by step.", {
      "checklist.md": "1. run the tests\n2. tag the release\n",
    });
    const checklist = path.join(folder, "checklist.md");
    const created = await harness.runtime.createConversation({
      text: `[[tool:load_skill {"name":"deploy"}]] [[tool:read_file {"path":${JSON.stringify(checklist)}}]]`,
    });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    const [load, read] = harness.items(created.conversation.id).filter((item) => item.kind === "tool_call");
    expect(load.output).toContain("Follow checklist.md step by step.");
    expect(load.output).toContain(`Paths in this skill are relative to ${folder}.`);
    expect(load.output).toContain(checklist);
    expect(read.status).toBe("completed");
    expect(read.output).toContain("tag the release");
  });

  it("an agent's skills: list limits the catalog and load_skill", async () => {
    harness = await startHarness();
    writeSkill(path.join(harness.home, "skills"), "alpha", "First skill.", "ALPHA");
    writeSkill(path.join(harness.home, "skills"), "beta", "Second skill.", "BETA");
    fs.mkdirSync(path.join(harness.home, "agents"), { recursive: true });
    fs.writeFileSync(path.join(harness.home, "agents", "narrow.md"), "---\nname: narrow\ndescription: Sees alpha only.\nskills: [alpha]\n---\nBe narrow.\n");
    harness.runtime.reloadAgents();
    const created = await harness.runtime.createConversation({ text: '[[tool:load_skill {"name":"beta"}]]', agent: "narrow" });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    const actor = harness.runtime.actor(created.conversation.id);
    const system = nextRequest(actor, actor.root).system;
    expect(system).toContain("- alpha: First skill.");
    expect(system).not.toContain("- beta:");
    const call = harness.items(created.conversation.id).find((item) => item.toolName === "load_skill")!;
    expect(call.status).toBe("failed");
    expect(call.output).toContain('No skill named "beta"');
  });

  it("re-adds a loaded skill after compaction summarized its load_skill call away", async () => {
    const h = await fakeHarness({}, 4000);
    writeSkill(path.join(h.home, "skills"), "kindness", "Answer kindly.", "SKILL-BODY-MARKER: always thank the owner.");
    fake!.enqueue(
      { type: "tool_call", name: "load_skill", arguments: { name: "kindness" } },
      { type: "text", text: "loaded it", usage: { promptTokens: 1500, completionTokens: 3 } },
      { type: "text", text: "ok again", usage: { promptTokens: 3100, completionTokens: 3 } },
    );
    const created = await h.runtime.createConversation({ text: "load the kindness skill" });
    const id = created.conversation.id;
    await h.turnEnded(id, created.turn.id);
    const second = await h.runtime.sendMessage(id, { text: `more ${"pear ".repeat(600)}`, mode: "auto" });
    await h.turnEnded(id, second.turn!.id);
    fake!.enqueue({ type: "text", text: "Summary: the owner asked for kindness" }, { type: "text", text: "after", usage: { promptTokens: 1800, completionTokens: 2 } });
    const third = await h.runtime.sendMessage(id, { text: `third ${"plum ".repeat(100)}`, mode: "auto" });
    expect((await h.turnEnded(id, third.turn!.id)).status).toBe("completed");
    const requests = chatRequests(fake!);
    expect(JSON.stringify(requests.at(-2)!.body.messages)).toContain("You are compacting a conversation.");
    const after = requests.at(-1)!.body;
    // The load_skill call itself is no longer in the messages; its body is back in the instructions.
    expect(JSON.stringify(after.messages.filter((message: { role: string }) => message.role !== "system"))).not.toContain("SKILL-BODY-MARKER");
    expect(systemOf(after)).toContain("Skills you loaded earlier in this conversation");
    expect(systemOf(after)).toContain("SKILL-BODY-MARKER: always thank the owner.");
  });

  it("skips a malformed SKILL.md with a logged reason and keeps the others", async () => {
    const temp = makeTempHome();
    const logged: string[] = [];
    writeSkill(path.join(temp.home, "skills"), "good", "A good skill.", "GOOD");
    fs.mkdirSync(path.join(temp.home, "skills", "bad"), { recursive: true });
    fs.writeFileSync(path.join(temp.home, "skills", "bad", "SKILL.md"), "---\nname: bad\n---\nno description\n");
    fs.mkdirSync(path.join(temp.home, "skills", "broken"), { recursive: true });
    fs.writeFileSync(path.join(temp.home, "skills", "broken", "SKILL.md"), "no front matter at all\n");
    const runtime = new Runtime({ store: new Store(temp.home, { log: () => {} }), config: parseConfig({ defaultCwd: temp.home }), log: (line) => logged.push(line) });
    await runtime.start();
    cleanups.push(async () => {
      await runtime.stop();
      temp.cleanup();
    });
    expect(runtime.extensions.skills({ cwd: temp.home }).map((skill) => skill.name)).toEqual(["good"]);
    expect(logged.some((line) => line.includes(path.join("bad", "SKILL.md")) && line.includes("description"))).toBe(true);
    expect(logged.some((line) => line.includes(path.join("broken", "SKILL.md")) && line.includes("missing YAML front matter"))).toBe(true);
  });

  it("keeps the catalog of 200 skills within skillCatalogTokens, the most relevant first", async () => {
    const h = await fakeHarness();
    const root = path.join(h.home, "skills");
    for (let index = 0; index < 200; index += 1) {
      const name = `skill-${String(index).padStart(3, "0")}`;
      writeSkill(root, name, `Handles routine chore number ${index} for the team, with care and a long description of what it covers.`, "BODY");
    }
    writeSkill(root, "zebra-migration", "Migrate the zebra database schema safely.", "ZEBRA");
    const created = await h.runtime.createConversation({ text: "help me with the zebra migration" });
    await h.turnEnded(created.conversation.id, created.turn.id);
    const system = systemOf(chatRequests(fake!).at(-1)!.body);
    const catalog = system.slice(system.indexOf("Skills: instructions"));
    expect(estimateTokens(catalog)).toBeLessThanOrEqual(1500);
    const listed = catalog.split("\n").filter((line) => line.startsWith("- "));
    expect(listed.length).toBeGreaterThan(10);
    expect(listed.length).toBeLessThan(201);
    expect(listed[0]).toContain("zebra-migration");
    expect(catalog).toMatch(/\(\d+ more skills not listed; load_skill takes any skill's name\.\)/);
  });
});
