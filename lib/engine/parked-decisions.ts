import type { EngineOwner } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Approval, Item, Question, Turn } from "../events/entities";
import type { TurnHandle } from "../ports/owner-port";

/** The requestKey and body hash kept with the record a keyed request wrote (DESIGN §8). */
type Keyed = { requestKey?: string; requestHash?: string };

/**
 * A tool call that needs the owner's approval: its pending approval, asked for once. A turn
 * resumed after a restart finds the one it asked for before.
 */
export async function requestApproval(actor: EngineOwner, runner: TurnHandle, item: Item): Promise<Approval> {
  const store = actor.context.store;
  const asked = actor.records.approvals().find((candidate) => candidate.itemId === item.id && candidate.turnId === runner.turn.id);
  if (asked) return asked;
  const approvalId = store.newId();
  await actor.records.append({
    type: "approval.requested",
    approvalId,
    sessionId: runner.session.id,
    turnId: runner.turn.id,
    itemId: item.id,
    toolName: item.toolName ?? "",
    input: item.input ?? null,
    usage: { ...runner.turn.usage },
  });
  const approval = actor.records.approval(approvalId)!;
  actor.publish({ type: "approval.requested", sessionId: runner.session.id, turnId: runner.turn.id, approval });
  actor.context.bus.publishList({ type: "approval.requested", conversationId: actor.id, approval });
  return approval;
}

/** ask_user: the call's pending question, asked once (a resumed turn finds its own). */
export async function askQuestion(actor: EngineOwner, runner: TurnHandle, item: Item, asked: { question: string; choices: string[] }): Promise<Question> {
  const store = actor.context.store;
  const existing = actor.records.questions().find((candidate) => candidate.itemId === item.id);
  if (existing) return existing;
  const questionId = store.newId();
  await actor.records.append({
    type: "question.asked",
    questionId,
    sessionId: runner.session.id,
    turnId: runner.turn.id,
    itemId: item.id,
    question: asked.question,
    choices: asked.choices,
    usage: { ...runner.turn.usage },
  });
  const question = actor.records.question(questionId)!;
  actor.publish({ type: "question.asked", sessionId: runner.session.id, turnId: runner.turn.id, question });
  return question;
}

/** The owner's answers to parked turns (approvals, ask_user questions), and settling them when a turn ends. */

export async function decideApproval(actor: EngineOwner, approvalId: string, decision: "approve" | "deny", keyed: Keyed = {}): Promise<Approval> {
  const approval = actor.records.approval(approvalId);
  if (!approval || approval.conversationId !== actor.id) throw new AtriumError("not_found", `approval ${approvalId} was not found`);
  if (approval.status !== "pending") {
    if ((approval.status === "approved") === (decision === "approve")) return approval;
    throw new AtriumError("not_idle", `approval ${approvalId} was already ${approval.status}`);
  }
  const subject = { conversationId: actor.id, approvalId, itemId: approval.itemId, toolName: approval.toolName, input: approval.input };
  const proof = actor.context.store.proofs.decision(subject, decision);
  await actor.records.append({ type: "approval.decided", approvalId, decision, proof, ...keyed });
  const decided = actor.records.approval(approvalId)!;
  actor.publish({ type: "approval.decided", sessionId: decided.sessionId, turnId: decided.turnId, approval: decided });
  actor.context.bus.publishList({ type: "approval.decided", conversationId: actor.id, approval: decided });
  actor.wake(approvalId);
  return decided;
}

export async function answerQuestion(actor: EngineOwner, questionId: string, answer: string, keyed: Keyed = {}): Promise<Question> {
  const question = actor.records.question(questionId);
  if (!question || question.conversationId !== actor.id) throw new AtriumError("not_found", `question ${questionId} was not found`);
  if (question.status !== "pending") {
    if (question.answer === answer) return question;
    throw new AtriumError("not_idle", `question ${questionId} was already answered`);
  }
  const turnOpen = actor.sessions.get(question.sessionId)?.runner?.turn.id === question.turnId;
  if (!turnOpen) throw new AtriumError("not_idle", `the turn that asked question ${questionId} is over`);
  await actor.records.append({ type: "question.answered", questionId, answer, ...keyed });
  const answered = actor.records.question(questionId)!;
  actor.publish({ type: "question.answered", sessionId: answered.sessionId, turnId: answered.turnId, question: answered });
  actor.wake(questionId);
  return answered;
}

/**
 * An ended turn leaves nothing pending: its approvals are denied and its questions cancelled, and
 * every client hears so. `reason` says why when it is not the turn ending on its own (`imported`).
 */
export async function settleParked(actor: EngineOwner, turn: Turn, reason?: string): Promise<void> {
  for (const approval of actor.records.approvals("pending")) {
    if (approval.turnId !== turn.id) continue;
    await actor.records.append({ type: "approval.decided", approvalId: approval.id, decision: "deny", reason });
    const decided = actor.records.approval(approval.id)!;
    actor.publish({ type: "approval.decided", sessionId: decided.sessionId, turnId: decided.turnId, approval: decided });
    actor.context.bus.publishList({ type: "approval.decided", conversationId: actor.id, approval: decided });
    actor.decisionWaiters.delete(approval.id);
  }
  for (const question of actor.records.questions("pending")) {
    if (question.turnId !== turn.id) continue;
    await actor.records.append({ type: "question.answered", questionId: question.id, answer: "", cancelled: true, reason });
    const cancelled = actor.records.question(question.id)!;
    actor.publish({ type: "question.answered", sessionId: cancelled.sessionId, turnId: cancelled.turnId, question: cancelled });
    actor.decisionWaiters.delete(question.id);
  }
}
