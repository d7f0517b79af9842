import { AtriumError } from "../errors";
import type { Approval, Question } from "../events/entities";
import { getApproval, getQuestion } from "../store/queries";
import type { Store } from "../store/store";
import type { ConversationActor } from "./conversation-actor";
import type { RequestKeys } from "./request-keys";

/** An approval by id, whichever conversation it belongs to. */
export function findApproval(store: Store, approvalId: string): Approval {
  const approval = getApproval(store.index, approvalId);
  if (!approval) throw new AtriumError("not_found", `approval ${approvalId} was not found`);
  return approval;
}

/** A question by id, whichever conversation it belongs to. */
export function findQuestion(store: Store, questionId: string): Question {
  const question = getQuestion(store.index, questionId);
  if (!question) throw new AtriumError("not_found", `question ${questionId} was not found`);
  return question;
}

/** POST /api/approvals/:id: with a requestKey, a retry answers as the first time; another decision under it is idempotency_conflict. */
export function decideApprovalRequest(keys: RequestKeys, store: Store, owners: (conversationId: string) => ConversationActor, approvalId: string, decision: "approve" | "deny", requestKey?: string): Promise<Approval> {
  const actor = owners(findApproval(store, approvalId).conversationId);
  const perform = (keyed: { requestKey?: string; requestHash?: string }) => actor.decideApproval(approvalId, decision, keyed);
  return keys.run(actor.id, requestKey, { approval: approvalId, decision }, perform, () => actor.approval(approvalId) ?? findApproval(store, approvalId));
}

/** POST /api/questions/:id/answer, keyed the same way. */
export function answerQuestionRequest(keys: RequestKeys, store: Store, owners: (conversationId: string) => ConversationActor, questionId: string, answer: string, requestKey?: string): Promise<Question> {
  const actor = owners(findQuestion(store, questionId).conversationId);
  const perform = (keyed: { requestKey?: string; requestHash?: string }) => actor.answerQuestion(questionId, answer, keyed);
  return keys.run(actor.id, requestKey, { question: questionId, answer }, perform, () => actor.question(questionId) ?? findQuestion(store, questionId));
}
