import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
let fake: FakeOpenAIServer;
afterEach(async () => {
  await harness?.close();
  await fake?.close();
});

const REALISTIC: [number, number] = [2000, 2200];

async function twoTurns(mode: "all_turns" | "current_turn", applied?: "all_turns" | "current_turn", reported: [number, number] = [50, 90]) {
  fake = await startFakeOpenAIServer();
  process.env.ATRIUM_TEST_OPENAI_KEY = "test-key";
  harness = await startHarness({
    models: [
      {
        id: "thinker",
        provider: "openai",
        api: "responses",
        baseURL: fake.url,
        model: "o4-mini",
        apiKeyEnv: "ATRIUM_TEST_OPENAI_KEY",
        reasoningContext: mode,
        effort: true,
      },
    ],
    defaultModel: "thinker",
  });
  fake.enqueue(
    { type: "text", text: "first answer", reasoning: "first thoughts about the problem", reasoningContext: applied, usage: { promptTokens: reported[0], completionTokens: 20 } },
    { type: "text", text: "second answer", reasoning: "second thoughts", reasoningContext: applied, usage: { promptTokens: reported[1], completionTokens: 20 } },
  );
  const created = await harness.runtime.createConversation({ text: "question one", effort: "high" });
  const id = created.conversation.id;
  await harness.turnEnded(id, created.turn.id);
  const next = await harness.runtime.sendMessage(id, { text: "question two", mode: "auto" });
  await harness.turnEnded(id, next.turn!.id);
  const responses = fake.requests.filter((request) => request.path.endsWith("/responses"));
  return { id, second: responses[1].body as { input: Array<Record<string, unknown>>; reasoning?: { effort?: string } } };
}

const carriesReasoning = (input: Array<Record<string, unknown>>) =>
  input.some((entry) => entry.type === "item_reference" || entry.type === "reasoning");

describe("reasoning context for OpenAI reasoning models (Responses API)", () => {
  it("all_turns sends the earlier turn's reasoning items back", async () => {
    const { id, second } = await twoTurns("all_turns", "all_turns");
    expect(carriesReasoning(second.input)).toBe(true);
    expect(second.reasoning?.effort).toBe("high");
    const context = harness.runtime.getContext(id);
    expect(context.reasoningContext).toEqual({ configured: "all_turns", applied: "all_turns" });
    const reasoning = harness.runtime.listItems(id, {}).items.filter((item) => item.kind === "reasoning");
    expect(reasoning.map((item) => item.text)).toEqual(["first thoughts about the problem", "second thoughts"]);
    expect(reasoning[0].providerMetadata).toBeDefined();
  });

  it("current_turn does not send earlier turns' reasoning", async () => {
    const { second } = await twoTurns("current_turn");
    expect(carriesReasoning(second.input)).toBe(false);
  });

  it("counts usage by the mode the provider reported applying", async () => {
    // Reports near Atrium's own estimate of the request, so what is added after them stays countable once calibrated.
    const kept = await twoTurns("all_turns", "all_turns", REALISTIC);
    const keptContext = harness.runtime.getContext(kept.id);
    await harness.close();
    await fake.close();
    const dropped = await twoTurns("all_turns", "current_turn", REALISTIC);
    const droppedContext = harness.runtime.getContext(dropped.id);
    expect(droppedContext.reasoningContext).toEqual({ configured: "all_turns", applied: "current_turn" });
    expect(keptContext.source).toBe("reported");
    expect(droppedContext.source).toBe("reported");
    // Same reports; only the reasoning the provider keeps is counted on top, on the provider's scale.
    expect(keptContext.calibration).toBeGreaterThan(0.8);
    expect(keptContext.usedTokens - droppedContext.usedTokens).toBeGreaterThanOrEqual(Math.floor(Math.ceil("second thoughts".length / 4) * keptContext.calibration!));
  });
});
