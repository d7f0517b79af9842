import { isAtriumError } from "../errors";
import type { ConversationOwner, TurnHandle } from "../ports/owner-port";
import type { SessionState } from "../ports/session-state";
import { failed, ok, type ConversationToolContext } from "../tools/conversation-tool";
import type { ToolResult } from "../tools/tool";

const DEFAULT_WAIT_MS = 5 * 60_000;
const MAXIMUM_WAIT_MS = 30 * 60_000;

type Result = ToolResult;

/** The collaboration tools of DESIGN §5 (declared in lib/tools/engine-tools), each on input its schema parsed. */
export async function sendToAgent(input: { agentId: string; text: string }, { turn }: ConversationToolContext): Promise<Result> {
  return withAgent(turn, input.agentId, async (child) => {
    try {
      const outcome = await turn.actor.sendMessage({ text: input.text, mode: child.runner ? "steer" : "auto", sessionId: child.id, origin: "parent" });
      return ok(`Message ${outcome.message.status} for ${child.id}.`);
    } catch (error) {
      // A full Waiting list is an answer the model can act on (wait for the agent), not a failed turn.
      if (isAtriumError(error) && error.code === "queue_full") return failed(`Not sent: ${error.message}`);
      throw error;
    }
  });
}

export function interruptAgent(input: { agentId: string }, { turn }: ConversationToolContext): Promise<Result> {
  return withAgent(turn, input.agentId, async (child) => {
    const interrupted = await turn.actor.interrupt(child.id, false);
    return ok(interrupted ? `Interrupting ${child.id} (turn ${interrupted.id}).` : `${child.id} was not running.`);
  });
}

export function inspectAgent(input: { agentId: string }, { turn }: ConversationToolContext): Promise<Result> {
  return withAgent(turn, input.agentId, async (child) => ok(JSON.stringify(inspect(child), null, 2)));
}

export async function spawnAgent(input: { task: string; agent?: string; history?: boolean }, { turn: runner }: ConversationToolContext): Promise<Result> {
  const { actor, session } = runner;
  const context = actor.context;
  const task = input.task;
  if (task.trim() === "") return failed("Invalid input for spawn_agent: task: a non-empty string is required");
  const depthLimit = context.config.subagentDepthLimit;
  if (session.depth + 1 > depthLimit) {
    return failed(`Cannot spawn: subagents may nest ${depthLimit} levels deep and this agent is at depth ${session.depth}. Do the work yourself.`);
  }
  const agentName = input.agent ? input.agent : "default";
  const agent = context.agent(agentName, actor.conversation());
  if (!agent) return failed(`Unknown agent "${agentName}". Pick one of the agents listed in the tool description.`);
  const model = agent.model && context.models.get(agent.model) ? agent.model : runner.turn.model;
  const concurrencyLimit = context.config.subagentConcurrencyLimit;
  const child = await actor.spawnSession(session, { agent: agent.name, model, task, history: input.history === true, concurrencyLimit });
  if (!child) {
    return failed(
      `Cannot spawn: ${concurrencyLimit} subagents are already running in this conversation (subagentConcurrencyLimit). Wait for some with wait_agents, or do the work yourself.`,
    );
  }
  return ok(JSON.stringify({ agentId: child.id }));
}

export async function waitAgents(input: { ids: string[]; timeoutMs?: number }, { turn: runner }: ConversationToolContext): Promise<Result> {
  const { actor, session } = runner;
  const ids = input.ids;
  const unknown = ids.filter((id) => !isDescendant(actor, session, id));
  if (unknown.length > 0) return failed(`Unknown agentId ${unknown.join(", ")}: not a subagent of this agent.`);
  const timeoutMs = Math.min(input.timeoutMs ?? DEFAULT_WAIT_MS, MAXIMUM_WAIT_MS);
  const wanted = new Set(ids);
  const reports = new Map<string, string>();
  for (const report of await actor.takeReports(session, wanted, runner.turn.id)) reports.set(report.childId, report.text);
  const pending = () => ids.filter((id) => !reports.has(id) && actor.sessions.get(id)?.runner);
  if (pending().length > 0) {
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        runner.signal.removeEventListener("abort", finish);
        actor.reportWaiters.delete(session.id);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      runner.signal.addEventListener("abort", finish, { once: true });
      actor.reportWaiters.set(session.id, {
        ids: wanted,
        onReport(childId, text) {
          reports.set(childId, text);
          if (pending().length === 0) finish();
        },
      });
    });
  }
  const lines = ids.map((id) => {
    const report = reports.get(id);
    if (report) return `## ${id}\n${report}`;
    const running = actor.sessions.get(id)?.runner;
    return running ? `## ${id}\nstill running after ${timeoutMs} ms (turn ${running.turn.id})` : `## ${id}\nidle; no new report`;
  });
  return ok(lines.join("\n\n"));
}

async function withAgent(runner: TurnHandle, agentId: string, act: (child: SessionState) => Promise<Result>): Promise<Result> {
  if (!isDescendant(runner.actor, runner.session, agentId)) {
    return failed(`Unknown agentId "${agentId}": not a subagent of this agent. Use the agentId spawn_agent returned.`);
  }
  return act(runner.actor.sessions.get(agentId)!);
}

function isDescendant(actor: ConversationOwner, ancestor: SessionState, sessionId: string): boolean {
  let current = actor.sessions.get(sessionId);
  while (current?.parentSessionId) {
    if (current.parentSessionId === ancestor.id) return true;
    current = actor.sessions.get(current.parentSessionId);
  }
  return false;
}

export function inspect(child: SessionState) {
  const turn = child.runner?.turn ?? null;
  const usage = child.items.length;
  return {
    agentId: child.id,
    agent: child.agent,
    model: child.model,
    status: turn ? (turn.status === "running" ? "running" : "waiting") : "idle",
    currentTurn: turn ? { id: turn.id, status: turn.status, startedAt: turn.startedAt } : null,
    lastItems: child.items.slice(-5).map((item) => ({
      kind: item.kind,
      status: item.status,
      toolName: item.toolName,
      text: (item.text ?? item.output ?? "").slice(0, 500),
    })),
    usage: { items: usage, lastReportedInputTokens: child.lastReportedInput },
  };
}
