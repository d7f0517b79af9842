import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { pollUntil } from "../../support/poll";

let harness: Harness;
afterEach(async () => harness?.close());

function spawnDirective(task: string, extra: Record<string, unknown> = {}): string {
  return `[[tool:spawn_agent ${JSON.stringify({ task, ...extra })}]]`;
}

async function rootIdle(conversationId: string, rootSessionId: string) {
  return pollUntil(
    () =>
      harness.runtime.listSessions(conversationId).find((session) => session.id === rootSessionId)!.status === "idle" &&
      !harness.runtime.listWaiting(conversationId).some((waiting) => waiting.sessionId === rootSessionId),
    { what: "the root agent to be idle" },
  );
}

async function idle(conversationId: string) {
  return pollUntil(() => harness.runtime.listSessions(conversationId).every((session) => session.status === "idle") && harness.runtime.listWaiting(conversationId).length === 0, {
    what: "every session to be idle",
  });
}

describe("subagents", () => {
  it("spawn_agent starts a child session with only the task, which reports back to its parent", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: `delegate ${spawnDirective("child task [[stream:3]]")}` });
    const id = created.conversation.id;
    await idle(id);
    const sessions = harness.runtime.listSessions(id);
    expect(sessions).toHaveLength(2);
    const child = sessions.find((session) => session.parentSessionId !== null)!;
    expect(child.parentSessionId).toBe(created.conversation.rootSessionId);
    expect(child.depth).toBe(1);

    const childItems = harness.runtime.listItems(id, { session: child.id }).items;
    expect(childItems.map((item) => item.kind)).toEqual(["user_message", "assistant_message"]);
    expect(childItems[0].text).toBe("child task [[stream:3]]");
    expect(childItems[1].text).toBe("You said: child task w1 w2 w3");

    const rootItems = harness.runtime.listItems(id, {}).items;
    const spawnCall = rootItems.find((item) => item.kind === "tool_call")!;
    expect(JSON.parse(spawnCall.output!)).toEqual({ agentId: child.id });
    const report = rootItems.find((item) => item.kind === "subagent_report")!;
    expect(report.fromSessionId).toBe(child.id);
    expect(report.text).toContain("You said: child task w1 w2 w3");
    expect(report.text).toContain("completed");
  });

  it("gives the child the parent's finished history when asked", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: "remember the word mango" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    await harness.runtime.sendMessage(id, { text: spawnDirective("what was the word?", { history: true }), mode: "auto" });
    await idle(id);
    const child = harness.runtime.listSessions(id).find((session) => session.parentSessionId)!;
    const childItems = harness.runtime.listItems(id, { session: child.id }).items;
    expect(childItems[0].text).toBe("remember the word mango");
    expect(childItems.at(-2)!.text).toBe("what was the word?");
  });

  it("reports after each child turn, and the owner can message a subagent directly", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: spawnDirective("first job") });
    const id = created.conversation.id;
    await idle(id);
    const child = harness.runtime.listSessions(id).find((session) => session.parentSessionId)!;
    await harness.runtime.sendMessage(id, { text: "second job", mode: "auto", session: child.id });
    const reports = await pollUntil(() => {
      const found = harness.runtime.listItems(id, {}).items.filter((item) => item.kind === "subagent_report");
      return found.length >= 2 && found;
    }, { what: "two reports" });
    expect(reports.map((report) => report.text!.split("\n\n")[1])).toEqual(["You said: first job", "You said: second job"]);
  });

  it("wait_agents returns the reports and times out cleanly", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: spawnDirective("slow child [[delay:20]] [[stream:15]]") });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const child = harness.runtime.listSessions(id).find((session) => session.parentSessionId)!;
    const outcome = await harness.runtime.sendMessage(id, { text: `[[tool:wait_agents {"ids":["${child.id}"]}]]`, mode: "queue" });
    await idle(id);
    const items = harness.runtime.listItems(id, { limit: 500 }).items;
    const wait = items.find((item) => item.toolName === "wait_agents")!;
    expect(wait.status).toBe("completed");
    expect(wait.output).toContain("You said: slow child w1");

    const second = await harness.runtime.sendMessage(id, { text: "busy again [[delay:200]] [[stream:50]]", mode: "auto", session: child.id });
    const waited = await harness.runtime.sendMessage(id, { text: `[[tool:wait_agents {"ids":["${child.id}"],"timeoutMs":50}]]`, mode: "auto" });
    await harness.turnEnded(id, waited.turn!.id);
    const timedOut = harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.toolName === "wait_agents").at(-1)!;
    expect(timedOut.output).toContain("still running after 50 ms");
    await harness.runtime.interrupt(id, child.id);
    expect(second.turn).not.toBeNull();
    expect(outcome.message.status).toBeDefined();
  });

  it("send_message, inspect_agent and interrupt_agent reach the child; foreign ids are refused", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: spawnDirective("long child [[delay:100]] [[stream:100]]") });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const child = harness.runtime.listSessions(id).find((session) => session.parentSessionId)!;
    const root = created.conversation.rootSessionId;
    await harness.runtime.sendMessage(id, { text: `[[tool:inspect_agent {"agentId":"${child.id}"}]]`, mode: "auto" });
    await rootIdle(id, root);
    const inspected = harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.toolName === "inspect_agent").at(-1)!;
    expect(JSON.parse(inspected.output!)).toMatchObject({ agentId: child.id, status: "running" });

    await harness.runtime.sendMessage(id, { text: `[[tool:interrupt_agent {"agentId":"${child.id}"}]]`, mode: "auto" });
    await pollUntil(() => harness.runtime.listSessions(id).find((session) => session.id === child.id)!.status === "idle", { what: "the child to stop" });
    const childTurns = harness.runtime.listTurns(id).filter((turn) => turn.sessionId === child.id);
    expect(childTurns[0].status).toBe("interrupted");

    await rootIdle(id, root);
    await harness.runtime.sendMessage(id, { text: `[[tool:send_message {"agentId":"${child.id}","text":"hello child"}]]`, mode: "auto" });
    await pollUntil(() => harness.runtime.listItems(id, { session: child.id }).items.some((item) => item.text === "You said: hello child"), { what: "the child to answer" });

    await idle(id);
    await harness.runtime.sendMessage(id, { text: `[[tool:inspect_agent {"agentId":"01JAAAAAAAAAAAAAAAAAAAAAAA"}]]`, mode: "auto" });
    await idle(id);
    const refused = harness.runtime.listItems(id, { limit: 500 }).items.filter((item) => item.toolName === "inspect_agent").at(-1)!;
    expect(refused.status).toBe("failed");
    expect(refused.output).toContain("not a subagent");
  });

  it("nests to the depth limit and refuses past it with a clear error", async () => {
    harness = await startHarness({ subagentDepthLimit: 2 });
    const deepest = spawnDirective("level three");
    const created = await harness.runtime.createConversation({ text: spawnDirective(`level one ${spawnDirective(`level two ${deepest}`)}`) });
    const id = created.conversation.id;
    await idle(id);
    const sessions = harness.runtime.listSessions(id);
    expect(sessions.map((session) => session.depth).sort()).toEqual([0, 1, 2]);
    const levelTwo = sessions.find((session) => session.depth === 2)!;
    const refused = harness.runtime.listItems(id, { session: levelTwo.id }).items.find((item) => item.toolName === "spawn_agent")!;
    expect(refused.status).toBe("failed");
    expect(refused.output).toContain("nest 2 levels deep");
  });

  it("runs at most subagentConcurrencyLimit subagents at once; spawn_agent past it answers the model with a clear error", async () => {
    harness = await startHarness({ subagentConcurrencyLimit: 2 });
    const slow = (name: string) => spawnDirective(`${name} [[delay:50]] [[stream:20]]`);
    const created = await harness.runtime.createConversation({ text: `${slow("one")} ${slow("two")} ${slow("three")}` });
    const id = created.conversation.id;
    await idle(id);
    expect(harness.runtime.listSessions(id)).toHaveLength(3);
    const calls = harness.runtime.listItems(id, {}).items.filter((item) => item.toolName === "spawn_agent");
    expect(calls.map((item) => item.status)).toEqual(["completed", "completed", "failed"]);
    expect(calls[2].output).toContain("2 subagents are already running in this conversation (subagentConcurrencyLimit)");
  });

  it("puts the owner's messages before subagent reports, and holds reports after the owner interrupts", async () => {
    harness = await startHarness();
    const created = await harness.runtime.createConversation({ text: `${spawnDirective("quick child")} then wait [[delay:60]] [[stream:20]]` });
    const id = created.conversation.id;
    // The child reports while the parent still streams; the owner queues a message after that.
    await pollUntil(() => harness.runtime.listWaiting(id).some((waiting) => waiting.origin === "subagent"), { what: "the report to wait" });
    await harness.runtime.sendMessage(id, { text: "owner first", mode: "queue" });
    await idle(id);
    const inputs = harness.runtime
      .listItems(id, { limit: 500 })
      .items.filter((item) => item.kind === "user_message" || item.kind === "subagent_report")
      .map((item) => item.kind);
    expect(inputs).toEqual(["user_message", "user_message", "subagent_report"]);

    const second = await harness.runtime.createConversation({ text: `${spawnDirective("child [[delay:30]] [[stream:5]]")} [[delay:100]] [[stream:50]]` });
    const secondId = second.conversation.id;
    await harness.nextEvent(secondId, "session.created");
    await harness.runtime.interrupt(secondId);
    await harness.turnEnded(secondId, second.turn.id);
    await pollUntil(() => harness.runtime.listWaiting(secondId).some((waiting) => waiting.origin === "subagent"), { what: "the held report" });
    expect(harness.runtime.listTurns(secondId).filter((turn) => turn.sessionId === second.conversation.rootSessionId)).toHaveLength(1);
    const resumed = await harness.runtime.sendMessage(secondId, { text: "carry on", mode: "auto" });
    expect(resumed.message.status).toBe("started");
    await idle(secondId);
    expect(harness.runtime.listItems(secondId, { limit: 500 }).items.some((item) => item.kind === "subagent_report")).toBe(true);
  });
});
