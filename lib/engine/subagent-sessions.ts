import type { Turn } from "../events/entities";
import type { MessageOrigin } from "../store/records";
import type { SpawnOptions } from "../ports/owner-port";
import type { EngineOwner } from "./engine-owner";
import type { SessionState } from "../ports/session-state";

export type { SpawnOptions } from "../ports/owner-port";

/** Subagent sessions of the conversation with a turn running now. */
export function runningSubagents(actor: EngineOwner): number {
  return [...actor.sessions.values()].filter((session) => session.parentSessionId !== null && session.runner !== null).length;
}

/**
 * spawn_agent: a new session in this conversation, started on its task at once; null when
 * the conversation already runs its limit of subagents. Counted inside the owner's queue, so
 * two agents spawning together cannot both take the last place.
 */
export async function spawnSession(actor: EngineOwner, parent: SessionState, options: SpawnOptions): Promise<SessionState | null> {
  actor.ensureAlive();
  if (runningSubagents(actor) >= options.concurrencyLimit) return null;
  const store = actor.context.store;
  const sessionId = store.newId();
  const record = await actor.records.append({
    type: "session.created",
    sessionId,
    agent: options.agent,
    model: options.model,
    parentSessionId: parent.id,
    spawnedBy: parent.runner?.turn.id ?? null,
    depth: parent.depth + 1,
  });
  const child: SessionState = {
    id: sessionId,
    agent: options.agent,
    model: options.model,
    parentSessionId: parent.id,
    depth: parent.depth + 1,
    createdAt: record.at,
    items: [],
    byId: new Map(),
    runner: null,
    lastReportedInput: null,
    reportedItemCount: 0,
    compaction: null,
    reasoningContextApplied: null,
    calibration: null,
  };
  actor.sessions.set(sessionId, child);
  actor.publish({
    type: "session.created",
    sessionId,
    session: {
      id: sessionId,
      conversationId: actor.id,
      parentSessionId: parent.id,
      agent: options.agent,
      model: options.model,
      status: "idle",
      depth: child.depth,
      createdAt: record.at,
    },
  });
  if (options.history) {
    const runningTurn = parent.runner?.turn.id;
    for (const item of parent.items) {
      if (item.turnId === runningTurn || item.status === "streaming" || item.status === "waiting") continue;
      const { seq: _seq, id: _id, sessionId: _session, createdAt: _created, origin, ...fields } = item;
      await actor.writeItem(child, { ...fields, origin: origin as MessageOrigin | undefined, turnId: null });
    }
  }
  await actor.startTurn(child, [{ id: store.newId(), text: options.task, origin: "parent" }]);
  return child;
}

/**
 * A subagent reports to its parent after each turn (DESIGN §5): into a wait_agents in
 * progress, or else into the parent's inbox behind the owner's messages.
 */
export async function deliverReport(actor: EngineOwner, child: SessionState, turn: Turn): Promise<void> {
  const parent = actor.sessions.get(child.parentSessionId ?? "");
  if (!parent) return;
  const text = reportText(child, turn);
  const waiter = actor.reportWaiters.get(parent.id);
  if (waiter && waiter.ids.has(child.id) && parent.runner) {
    await actor.writeItem(parent, {
      turnId: parent.runner.turn.id,
      kind: "subagent_report",
      status: "completed",
      text,
      origin: "subagent",
      fromSessionId: child.id,
    });
    waiter.onReport(child.id, text);
    return;
  }
  await actor.addWaiting(parent, actor.context.store.newId(), { text, mode: "queue", sessionId: parent.id, origin: "subagent", fromSessionId: child.id }, "queue");
  if (!parent.runner) await actor.pump(parent);
}

/** wait_agents: takes reports already waiting in the inbox, as report items of the running turn. */
export async function takeReports(actor: EngineOwner, parent: SessionState, childIds: ReadonlySet<string>, turnId: string): Promise<Array<{ childId: string; text: string }>> {
  const taken: Array<{ childId: string; text: string }> = [];
  const takenIds = new Set<string>();
  for (const entry of actor.ordered(parent)) {
    if (entry.origin !== "subagent" || !entry.fromSessionId || !childIds.has(entry.fromSessionId)) continue;
    await actor.writeItem(parent, {
      id: entry.id,
      turnId,
      kind: "subagent_report",
      status: "completed",
      text: entry.text,
      origin: "subagent",
      fromSessionId: entry.fromSessionId,
    });
    await actor.records.append({ type: "queue.removed", messageId: entry.id, reason: "steered" });
    taken.push({ childId: entry.fromSessionId, text: entry.text });
    takenIds.add(entry.id);
  }
  actor.forgetWaiting(takenIds);
  return taken;
}

function reportText(child: SessionState, turn: Turn): string {
  const last = [...child.items].reverse().find((item) => item.turnId === turn.id && item.kind === "assistant_message" && item.text);
  const outcome = turn.error ? `${turn.status} (${turn.error.code}: ${turn.error.message})` : turn.status;
  return `Subagent ${child.agent} (${child.id}) finished a turn: ${outcome}.\n\n${last?.text ?? "(no message)"}`;
}
