import { afterEach, describe, expect, it } from "vitest";
import { cleanTitle } from "@/lib/engine/auto-title";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  server = undefined;
});

describe("titleModel", () => {
  it("keeps the first-line title until the first reply, then writes the title model's short one", async () => {
    server = await startFakeOpenAIServer();
    server.setDefault({ type: "text", text: '"Fixing the flaky parser test."' });
    harness = await startHarness({
      models: [{ id: "titles", provider: "openai-compatible", baseURL: server.url, model: "fake-model" }],
      defaultModel: "offline",
      titleModel: "titles",
    });
    const created = await harness.runtime.createConversation({ text: "the parser test fails every other run\nhere is the log" });
    const id = created.conversation.id;
    expect(created.conversation.title).toBe("the parser test fails every other run");
    await harness.turnEnded(id, created.turn.id);
    const renamed = await harness.waitForEvent(id, "conversation.updated", (event) => event.conversation.title === "Fixing the flaky parser test");
    expect(renamed.conversation.titleSource).toBe("auto");
    const [request] = await server.waitForRequests(1);
    expect(JSON.stringify(request)).toContain("the parser test fails every other run");
    expect(JSON.stringify(request)).toContain("You said: the parser test fails");
  });

  it("cleans the model's answer into one short line", () => {
    expect(cleanTitle('Title: "Parser fix."\nmore')).toBe("Parser fix");
    expect(cleanTitle("  \n## Build setup\n")).toBe("Build setup");
    expect(cleanTitle('""')).toBeNull();
    expect(Array.from(cleanTitle("x".repeat(100))!)).toHaveLength(60);
  });
});
