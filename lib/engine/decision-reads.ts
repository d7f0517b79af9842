import { AtriumError } from "../errors";
import type { Approval, Question } from "../events/entities";
import { getApproval, getQuestion } from "../store/queries";
import type { Store } from "../store/store";

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
