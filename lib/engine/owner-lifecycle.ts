import { AtriumError } from "../errors";
import type { ConversationActor } from "./conversation-actor";

/** The server stops: nothing new starts; running turns close with server_stopped (parked ones stay parked on disk). */
export function stopOwner(owner: ConversationActor): Array<Promise<void>> {
  owner.stopped = true;
  const finishing: Array<Promise<void>> = [];
  for (const session of owner.sessions.values()) {
    const runner = session.runner;
    if (!runner || runner.turn.status !== "running") continue;
    runner.interrupt({ code: "server_stopped", message: "The Atrium server stopped during this turn.", byOwner: false });
    finishing.push(runner.finished);
  }
  return finishing;
}

/**
 * The delete command's checks, before its tombstone is written. A turn whose end is still
 * waiting for the disk does not hold a deletion back.
 */
export function assertDeletable(owner: ConversationActor): void {
  const running = [...owner.sessions.values()].some((session) => session.runner && !session.runner.closing);
  if (running) throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it first");
  if (owner.conversation().protected) throw new AtriumError("protected", "this conversation is protected; unprotect it before deleting");
}

/** The delete command's state change, after its tombstone is on disk: every waiter is let go. */
export function markDeleted(owner: ConversationActor): void {
  owner.deleted = true;
  owner.manualCompaction?.abort(new Error("the conversation was deleted"));
  for (const session of owner.sessions.values()) {
    const runner = session.runner;
    session.runner = null;
    runner?.settle();
  }
}
