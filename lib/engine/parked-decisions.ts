import { AtriumError } from "../errors";
import type { Approval, Question, Turn } from "../events/entities";
import { getApproval, getQuestion, listApprovals, listQuestions } from "../store/queries";
import type { ConversationOwner } from "../ports/owner-port";

/** The owner's answers to parked turns (approvals, ask_user questions), and settling them when a turn ends. */

export function decideApproval(actor: ConversationOwner, approvalId: string, decision: "approve" | "deny"): Promise<Approval> {
  return actor.locked(async () => {
    const db = actor.context.store.index;
    const approval = getApproval(db, approvalId);
    if (!approval || approval.conversationId !== actor.id) throw new AtriumError("not_found", `approval ${approvalId} was not found`);
    if (approval.status !== "pending") {
      if ((approval.status === "approved") === (decision === "approve")) return approval;
      throw new AtriumError("not_idle", `approval ${approvalId} was already ${approval.status}`);
    }
    const subject = { conversationId: actor.id, approvalId, itemId: approval.itemId, toolName: approval.toolName, input: approval.input };
    const proof = actor.context.store.proofs.decision(subject, decision);
    await actor.context.store.appendMetadata(actor.id, { type: "approval.decided", approvalId, decision, proof });
    const decided = getApproval(db, approvalId)!;
    actor.publish({ type: "approval.decided", sessionId: decided.sessionId, turnId: decided.turnId, approval: decided });
    actor.context.bus.publishList({ type: "approval.decided", conversationId: actor.id, approval: decided });
    actor.wake(approvalId);
    return decided;
  });
}

export function answerQuestion(actor: ConversationOwner, questionId: string, answer: string): Promise<Question> {
  return actor.locked(async () => {
    const db = actor.context.store.index;
    const question = getQuestion(db, questionId);
    if (!question || question.conversationId !== actor.id) throw new AtriumError("not_found", `question ${questionId} was not found`);
    if (question.status !== "pending") {
      if (question.answer === answer) return question;
      throw new AtriumError("not_idle", `question ${questionId} was already answered`);
    }
    const turnOpen = actor.sessions.get(question.sessionId)?.runner?.turn.id === question.turnId;
    if (!turnOpen) throw new AtriumError("not_idle", `the turn that asked question ${questionId} is over`);
    await actor.context.store.appendMetadata(actor.id, { type: "question.answered", questionId, answer });
    const answered = getQuestion(db, questionId)!;
    actor.publish({ type: "question.answered", sessionId: answered.sessionId, turnId: answered.turnId, question: answered });
    actor.wake(questionId);
    return answered;
  });
}

/**
 * An ended turn leaves nothing pending: its approvals are denied and its questions cancelled, and
 * every client hears so. `reason` says why when it is not the turn ending on its own (`imported`).
 */
export async function settleParked(actor: ConversationOwner, turn: Turn, reason?: string): Promise<void> {
  const db = actor.context.store.index;
  for (const approval of listApprovals(db, { conversationId: actor.id, status: "pending" })) {
    if (approval.turnId !== turn.id) continue;
    await actor.context.store.appendMetadata(actor.id, { type: "approval.decided", approvalId: approval.id, decision: "deny", reason });
    const decided = getApproval(db, approval.id)!;
    actor.publish({ type: "approval.decided", sessionId: decided.sessionId, turnId: decided.turnId, approval: decided });
    actor.context.bus.publishList({ type: "approval.decided", conversationId: actor.id, approval: decided });
    actor.decisionWaiters.delete(approval.id);
  }
  for (const question of listQuestions(db, { conversationId: actor.id, status: "pending" })) {
    if (question.turnId !== turn.id) continue;
    await actor.context.store.appendMetadata(actor.id, { type: "question.answered", questionId: question.id, answer: "", cancelled: true, reason });
    const cancelled = getQuestion(db, question.id)!;
    actor.publish({ type: "question.answered", sessionId: cancelled.sessionId, turnId: cancelled.turnId, question: cancelled });
    actor.decisionWaiters.delete(question.id);
  }
}
