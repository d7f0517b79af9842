import type { IndexStatements } from "./index-statements";
import type { MetadataRecord } from "./records";
import type { RecordProofs } from "./record-proofs";
import type { ReplayTally } from "./replay-tally";

type ApprovalRow = { turn_id: string; session_id: string; item_id: string; tool_name: string; input: string | null };

export type DecisionRecord = Extract<MetadataRecord, { type: "approval.requested" | "approval.decided" | "question.asked" | "question.answered" }>;

type RefreshStatus = (conversationId: string, sessionId: string, tally: ReplayTally | null) => void;

/**
 * The index rows of approvals and questions: asking one parks its turn, deciding or answering
 * resumes it. An approve counts only if its proof verifies (see RecordProofs).
 */
export class DecisionRows {
  constructor(
    private readonly statements: IndexStatements,
    private readonly proofs: RecordProofs,
    private readonly refreshStatus: RefreshStatus,
  ) {}

  apply(conversationId: string, record: DecisionRecord, tally: ReplayTally | null): void {
    const s = this.statements;
    switch (record.type) {
      case "approval.requested":
        s.insertApproval.run({
          id: record.approvalId,
          conversationId,
          sessionId: record.sessionId,
          turnId: record.turnId,
          itemId: record.itemId,
          toolName: record.toolName,
          input: JSON.stringify(record.input ?? null),
          at: record.at,
        });
        s.setTurnStatus.run({ id: record.turnId, status: "waiting_approval" });
        this.refreshStatus(conversationId, record.sessionId, tally);
        return;
      case "approval.decided": {
        const approval = s.approvalTurn.get(record.approvalId) as ApprovalRow | undefined;
        // A forged or copied approve leaves the approval pending: only the owner here can decide it.
        if (record.decision === "approve" && !this.approveVerifies(conversationId, record, approval)) return;
        s.decideApproval.run({
          id: record.approvalId,
          status: record.decision === "approve" ? "approved" : "denied",
          at: record.at,
        });
        if (approval) {
          s.resumeTurn.run({ id: approval.turn_id });
          this.refreshStatus(conversationId, approval.session_id, tally);
        }
        return;
      }
      case "question.asked":
        s.insertQuestion.run({
          id: record.questionId,
          conversationId,
          sessionId: record.sessionId,
          turnId: record.turnId,
          itemId: record.itemId,
          question: record.question,
          choices: JSON.stringify(record.choices),
          at: record.at,
        });
        s.setTurnStatus.run({ id: record.turnId, status: "waiting_user" });
        this.refreshStatus(conversationId, record.sessionId, tally);
        return;
      case "question.answered": {
        s.answerQuestion.run({ id: record.questionId, answer: record.cancelled ? null : record.answer, status: record.cancelled ? "cancelled" : "answered" });
        const question = s.questionTurn.get(record.questionId) as
          | { turn_id: string; session_id: string }
          | undefined;
        if (question) {
          s.resumeTurn.run({ id: question.turn_id });
          this.refreshStatus(conversationId, question.session_id, tally);
        }
        return;
      }
    }
  }

  private approveVerifies(conversationId: string, record: { approvalId: string; proof?: string }, approval: ApprovalRow | undefined): boolean {
    if (!approval) return false;
    const subject = {
      conversationId,
      approvalId: record.approvalId,
      itemId: approval.item_id,
      toolName: approval.tool_name,
      input: JSON.parse(approval.input ?? "null") as unknown,
    };
    return this.proofs.verifyDecision(record.proof, subject, "approve");
  }
}
