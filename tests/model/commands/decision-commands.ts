import type { ErrorCode } from "@/lib/errors";
import { resumeParked, type DecisionRecord, type Model } from "../model-state";
import { expectOutcome, ModelCommand, type Real } from "./command-support";

function pickDecision(model: Readonly<Model>, kind: DecisionRecord["kind"], index: number): DecisionRecord | undefined {
  const decisions = model.decisions.filter((decision) => decision.kind === kind);
  return decisions.length ? decisions[index % decisions.length] : undefined;
}

/** POST /api/approvals/:id: on a pending approval (the parked turn goes on), or on one already decided. */
export class DecideApprovalCommand extends ModelCommand {
  constructor(
    private readonly index: number,
    private readonly decision: "approve" | "deny",
  ) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return pickDecision(model, "approval", this.index) !== undefined;
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const record = pickDecision(model, "approval", this.index)!;
    const conversation = record.conversation;
    this.resolved = `${conversation.label}/${record.state}`;
    // Deciding again the same way answers the decision on record; the other way is refused.
    const expected: ErrorCode | null = conversation.deleted
      ? "not_found"
      : record.state === "pending" || record.state === this.decision
        ? null
        : "not_idle";
    const approval = await expectOutcome(`${this.decision} an approval of ${conversation.label} (${record.state})`, expected, () =>
      real.harness.runtime.decideApproval(record.id, this.decision),
    );
    if (!approval) return;
    const status = this.decision === "approve" ? "approved" : "denied";
    if (approval.status !== status) throw new Error(`${this.decision}: the approval is ${approval.status}`);
    if (record.state === "pending") {
      record.state = this.decision;
      resumeParked(conversation);
    }
  }

  toString(): string {
    return `${this.decision}(#${this.index}${this.resolved ? `→${this.resolved}` : ""})`;
  }
}

/** POST /api/questions/:id/answer: on a pending question (the parked turn goes on), or on one already settled. */
export class AnswerQuestionCommand extends ModelCommand {
  constructor(
    private readonly index: number,
    private readonly answer: "yes" | "no",
  ) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return pickDecision(model, "question", this.index) !== undefined;
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const record = pickDecision(model, "question", this.index)!;
    const conversation = record.conversation;
    this.resolved = `${conversation.label}/${record.state}`;
    // The same answer again answers what is on record; another answer, or one to a cancelled question, is refused.
    const expected: ErrorCode | null = conversation.deleted
      ? "not_found"
      : record.state === "pending" || (record.state === "answered" && record.answer === this.answer)
        ? null
        : "not_idle";
    const question = await expectOutcome(`answer a question of ${conversation.label} (${record.state})`, expected, () =>
      real.harness.runtime.answerQuestion(record.id, this.answer),
    );
    if (!question) return;
    if (question.status !== "answered" || question.answer !== (record.answer ?? this.answer)) {
      throw new Error(`answer: the question is ${question.status} with ${JSON.stringify(question.answer)}`);
    }
    if (record.state === "pending") {
      record.state = "answered";
      record.answer = this.answer;
      resumeParked(conversation);
    }
  }

  toString(): string {
    return `answer(#${this.index}${this.resolved ? `→${this.resolved}` : ""}, ${this.answer})`;
  }
}
