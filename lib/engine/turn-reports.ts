import type { Turn } from "../events/entities";
import { cloneTurn } from "../ports/session-state";
import type { ConversationOwner } from "../ports/owner-port";

/**
 * What a running turn's loop reports to its owner as it happens (the loop emits; the owner
 * changes its state). None of these writes a record, so each is applied at once, in the order
 * sent, in one place (`applyTurnReport`); what writes goes through the owner's queue
 * (owner-commands). A report about a turn that is no longer its session's running one is dropped.
 */
export type TurnReport =
  /** Streamed text of an assistant message or a reasoning item: to the item, and to every client. */
  | { type: "item_delta"; sessionId: string; turnId: string; itemId: string; field: "text" | "reasoning"; delta: string }
  /** A model call's usage: the turn's totals, and the session's last report for the context figure. */
  | {
      type: "model_usage";
      sessionId: string;
      turnId: string;
      inputTokens: number | null;
      outputTokens: number;
      /** How many of the session's items the call's request covered. */
      coveredItems: number;
      /** The request as Atrium estimates it (`estimateRequest`), to calibrate later estimates against the report. */
      estimatedInput: number;
      reasoningContext?: "all_turns" | "current_turn";
    }
  /** Parked for a decision, or running again. */
  | { type: "turn_status"; sessionId: string; turnId: string; status: Turn["status"] };

export function applyTurnReport(owner: Pick<ConversationOwner, "sessions" | "publish" | "publishConversation">, report: TurnReport): void {
  const session = owner.sessions.get(report.sessionId);
  const runner = session?.runner;
  if (!session || !runner || runner.turn.id !== report.turnId) return;
  // A turn whose start is still being flushed: its reports wait for it (in the order sent); a start the disk refuses drops them.
  if (!runner.onRecord) {
    void runner.recorded.then((onRecord) => onRecord && applyTurnReport(owner, report));
    return;
  }
  const turn = runner.turn;
  switch (report.type) {
    case "item_delta": {
      const item = session.byId.get(report.itemId);
      if (!item || report.delta === "") return;
      item.text = (item.text ?? "") + report.delta;
      owner.publish({ type: "item.delta", sessionId: session.id, turnId: turn.id, itemId: item.id, field: report.field, delta: report.delta });
      return;
    }
    case "model_usage":
      if (report.inputTokens !== null) {
        session.lastReportedInput = report.inputTokens;
        session.reportedItemCount = report.coveredItems;
        if (report.inputTokens > 0 && report.estimatedInput > 0) session.calibration = report.inputTokens / report.estimatedInput;
      }
      if (report.reasoningContext) session.reasoningContextApplied = report.reasoningContext;
      turn.usage.inputTokens += report.inputTokens ?? 0;
      turn.usage.outputTokens += report.outputTokens;
      return;
    case "turn_status":
      if (turn.status === report.status) return;
      turn.status = report.status;
      owner.publish({ type: "turn.updated", sessionId: session.id, turnId: turn.id, turn: cloneTurn(turn) });
      owner.publishConversation();
      return;
  }
}
