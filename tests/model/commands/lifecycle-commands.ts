import type { Runtime } from "@/lib/engine/runtime";
import type { ConversationEvent } from "@/lib/events/events";
import { live, pumpModel, steersOnParkedTurn, type Model, type ModelConversation } from "../model-state";
import { ConversationCommand, expectOutcome, ModelCommand, newMessage, type Real } from "./command-support";

/**
 * What a restart leaves of the model: parked turns stay parked, nothing an interrupt held back
 * stays held (that hold is the owner's, not the records'), and waiting messages carry on (DESIGN §3).
 */
function afterRestart(model: Model): void {
  for (const conversation of live(model)) {
    conversation.held = false;
    pumpModel(conversation);
  }
}

/** The turns of every live conversation not ended yet: what a restart must settle. */
function openTurns(runtime: Runtime, model: Model): Set<string> {
  return new Set(live(model).flatMap((conversation) => runtime.listTurns(conversation.id).filter((turn) => turn.endedAt === null).map((turn) => turn.id)));
}

/**
 * Once the new Runtime has started (recovery done, DESIGN §11: only then does it listen), no turn
 * open before the restart is still running: each has ended or is still parked. Turns the new
 * Runtime started since (waiting messages carrying on) are not from before.
 */
function expectNothingRunning(runtime: Runtime, before: Set<string>, what: string): void {
  const running = [...before].map((id) => runtime.getTurn(id)).filter((turn) => turn.status === "running");
  if (running.length > 0) throw new Error(`${what}: turns from before still running: ${running.map((turn) => turn.id).join(", ")}`);
}

/** Bug 2 (see the test file): the default run does not restart while steers wait on a parked turn. */
function restartAllowed(model: Readonly<Model>): boolean {
  return model.options.steerAfterRestart || !steersOnParkedTurn(model);
}

/** kill -9 and start again: the Runtime dies with no clean shutdown (see crashable-runtime.ts). */
export class CrashCommand extends ModelCommand {
  check(model: Readonly<Model>): boolean {
    return restartAllowed(model);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const before = openTurns(real.harness.runtime, model);
    const runtime = await real.harness.crash();
    afterRestart(model);
    expectNothingRunning(runtime, before, "after a crash");
  }

  toString(): string {
    return "crash()";
  }
}

/** A clean stop (stop()) and start, as `atrium serve stop` then `serve`. */
export class RestartCommand extends ModelCommand {
  check(model: Readonly<Model>): boolean {
    return restartAllowed(model);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const before = openTurns(real.harness.runtime, model);
    const runtime = await real.harness.restart();
    afterRestart(model);
    expectNothingRunning(runtime, before, "after a restart");
  }

  toString(): string {
    return "restart()";
  }
}

function firstEvent(runtime: Runtime, conversationId: string, test: (event: ConversationEvent) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error("the slow turn streamed nothing within 10 s"));
    }, 10_000);
    const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (!test(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

/**
 * kill -9 in the middle of a streaming turn (optionally with a message queued behind it): the
 * turn must come back interrupted (server_stopped) with what it streamed kept, and the queued one run.
 */
export class CrashDuringRunCommand extends ConversationCommand {
  constructor(
    index: number,
    private readonly withQueued: boolean,
  ) {
    super(index);
  }

  check(model: Readonly<Model>): boolean {
    const conversation = model.conversations.length ? model.conversations[this.index % model.conversations.length] : undefined;
    return conversation !== undefined && !conversation.deleted && !conversation.parked && conversation.waiting.length === 0 && restartAllowed(model);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    const slow = `${newMessage(model, "plain").text} [[delay:10]] [[stream:200]]`;
    const streaming = firstEvent(runtime, conversation.id, (event) => event.type === "item.delta");
    const sent = await expectOutcome(`slow send to ${conversation.label}`, null, () => runtime.sendMessage(conversation.id, { text: slow, mode: "auto" }));
    conversation.acknowledged.set(sent!.message.id, slow);
    conversation.held = false;
    if (this.withQueued) {
      const { text } = newMessage(model, "plain");
      const queued = await expectOutcome(`queue behind the slow turn of ${conversation.label}`, null, () =>
        runtime.sendMessage(conversation.id, { text, mode: "queue" }),
      );
      conversation.acknowledged.set(queued!.message.id, text);
      model.counter += 1;
      conversation.waiting.push({ id: queued!.message.id, text, kind: "plain", mode: "queue", position: model.counter });
    }
    await streaming;
    const before = openTurns(runtime, model);
    const after = await real.harness.crash();
    const turn = after.getTurn(sent!.turn!.id);
    if (turn.status !== "interrupted" || turn.error?.code !== "server_stopped") {
      throw new Error(`after the crash the streaming turn is ${turn.status} (${turn.error?.code}), not interrupted (server_stopped)`);
    }
    afterRestart(model);
    expectNothingRunning(after, before, "after a crash mid-turn");
  }

  toString(): string {
    return `crashDuringRun(${this.name}${this.withQueued ? ", with a queued message" : ""})`;
  }
}

/** GET …/sessions and each subagent's items: every spawned agent ran its task, finished, and reported back. */
export class InspectSubagentsCommand extends ConversationCommand {
  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    const sessions = await expectOutcome(`sessions of ${conversation.label}`, conversation.deleted ? "not_found" : null, async () =>
      runtime.listSessions(conversation.id),
    );
    if (!sessions) return;
    inspectChildren(runtime, conversation, sessions);
  }

  toString(): string {
    return `inspectSubagents(${this.name})`;
  }
}

function inspectChildren(runtime: Runtime, conversation: ModelConversation, sessions: ReturnType<Runtime["listSessions"]>): void {
  const children = sessions.filter((session) => session.parentSessionId !== null);
  const rootItems = runtime.listItems(conversation.id, { limit: 500 }).items;
  const spawnCalls = rootItems.filter((item) => item.kind === "tool_call" && item.toolName === "spawn_agent" && item.status === "completed");
  const named = new Set(spawnCalls.map((item) => (JSON.parse(item.output ?? "{}") as { agentId?: string }).agentId));
  const unnamed = children.filter((child) => !named.has(child.id)).map((child) => child.id);
  if (unnamed.length > 0) throw new Error(`${conversation.label}: subagent sessions no spawn_agent call started: ${unnamed.join(", ")}`);
  // A fork or restart copies the root agent's spawn_agent calls but not the subagents (DESIGN §2).
  if (!conversation.copy && children.length !== spawnCalls.length) {
    throw new Error(`${conversation.label}: ${children.length} subagent sessions for ${spawnCalls.length} completed spawn_agent calls`);
  }
  for (const child of children) {
    if (child.parentSessionId !== conversation.rootSessionId || child.depth !== 1) throw new Error(`subagent ${child.id}: parent ${child.parentSessionId}, depth ${child.depth}`);
    const items = runtime.listItems(conversation.id, { session: child.id, limit: 500 }).items;
    const task = items[0];
    if (task?.kind !== "user_message" || !/^task\d+ /.test(task.text ?? "")) throw new Error(`subagent ${child.id} began with ${JSON.stringify(task)}`);
    const turns = runtime.listTurns(conversation.id).filter((turn) => turn.sessionId === child.id);
    if (turns.some((turn) => turn.endedAt === null)) throw new Error(`subagent ${child.id} has a turn still open`);
    const reports = rootItems.filter((item) => item.kind === "subagent_report" && item.fromSessionId === child.id);
    if (reports.length !== turns.length) throw new Error(`subagent ${child.id}: ${reports.length} reports for ${turns.length} turns`);
  }
}
