import type { Item } from "../events/entities";
import type { CompactionResult } from "../ports/owner-port";
import type { SessionState } from "../ports/session-state";
import type { EngineOwner } from "./engine-owner";

/**
 * The owner's half of a compaction (DESIGN §4): the summary item, then the record naming where
 * the kept tail starts, then the session's context starts from the summary. An aborted
 * compaction (interrupt, delete) writes nothing.
 */
export async function recordCompaction(actor: EngineOwner, session: SessionState, result: CompactionResult): Promise<Item> {
  if (result.signal.aborted) throw result.signal.reason;
  const summary = await actor.writeItem(session, { turnId: result.turnId, kind: "compaction_summary", status: "completed", text: result.text });
  await actor.records.append({
    type: "compaction",
    sessionId: session.id,
    itemId: summary.id,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter(summary),
    firstKeptItemId: result.firstKeptItemId,
  });
  session.compaction = { itemId: summary.id, firstKeptItemId: result.firstKeptItemId };
  session.lastReportedInput = null;
  return summary;
}
