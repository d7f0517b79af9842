import { AtriumError } from "../errors";
import { isStorageError } from "../errors";
import type { OwnerState } from "./owner-state";

/** The server stops: nothing new starts; running turns close with server_stopped (parked ones stay parked on disk). */
export function stopOwner(owner: OwnerState): Array<Promise<void>> {
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
export function assertDeletable(owner: OwnerState): void {
  const running = [...owner.sessions.values()].some((session) => session.runner && !session.runner.closing);
  if (running) throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it first");
  if (owner.conversation().protected) throw new AtriumError("protected", "this conversation is protected; unprotect it before deleting");
}

/** The delete command's state change, after its tombstone is on disk: every waiter is let go. */
export function markDeleted(owner: OwnerState): void {
  owner.deleted = true;
  owner.manualCompaction?.abort(new Error("the conversation was deleted"));
  for (const session of owner.sessions.values()) {
    const runner = session.runner;
    session.runner = null;
    runner?.settle();
  }
}

/**
 * The delete command: the tombstone first (reindex finishes a removal cut short), then the
 * files; only once it is on disk is the conversation gone. A disk too full for the tombstone
 * still drops the conversation (which frees space), renamed away first.
 */
export async function deleteConversation(owner: OwnerState): Promise<void> {
  const store = owner.context.store;
  assertDeletable(owner);
  try {
    await owner.records.append({ type: "conversation.deleted", conversationId: owner.id });
  } catch (error) {
    if (!isStorageError(error)) throw error;
    await store.retireConversation(owner.id).catch(() => Promise.reject(error));
    markDeleted(owner);
    return;
  }
  markDeleted(owner);
  await store.closeConversation(owner.id);
  // Its directory on a single server (records and files); its blobs on a node of a cluster.
  await store.files.removeConversation(owner.id);
  // A tombstone the index could not take is still a delete: catching up drops the rows.
  owner.records.forgetIndexFault();
}
