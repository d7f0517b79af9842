import { AtriumError } from "../errors";
import type { CheckpointFields, CheckpointRecord, Checkpoints } from "./checkpoints";

export interface RestoreMessage {
  turnId: string | null;
  createdAt: string;
}

export interface RestoreOutcome {
  restored: string[];
  /** Puts the files back to how they were just before the restore (used when the rewind fails after it). */
  undo(): Promise<void>;
}

/** The checkpoint that holds the files as they were before `message`. */
export function checkpointBefore(records: readonly CheckpointRecord[], message: RestoreMessage): CheckpointRecord | null {
  // Only the turn's own start: a tool record already holds what that tool changed after the message.
  const start = records.find(
    (record) => record.reason === "turn_start" && record.turnId === message.turnId && record.turnId !== null && takenAt(record) >= message.createdAt,
  );
  if (start) return start;
  return records.filter((record) => takenAt(record) <= message.createdAt).at(-1) ?? null;
}

export function takenAt(record: CheckpointRecord): string {
  return record.takenAt ?? record.at;
}

/** The paths the conversation changed since `message` (what a restore would put back). */
export async function filesChangedSince(checkpoints: Checkpoints, conversationId: string, message: RestoreMessage): Promise<string[]> {
  const records = checkpoints.list(conversationId);
  const before = checkpointBefore(records, message);
  const last = before && records.filter((record) => record.cwd === before.cwd).at(-1);
  if (!before || !last) return [];
  try {
    return await checkpoints.storeFor(conversationId).changedPaths(before.cwd, before.tree, last.tree);
  } catch (error) {
    const unreadable = await checkpoints.unreadable(conversationId, "the files changed since this message", { cwd: before.cwd, trees: [before.tree, last.tree] }, error);
    if (unreadable) throw unreadable;
    return [];
  }
}

/**
 * Restores the files changed since `message` to how they were before it. Checks first
 * (a file changed since the agent's last checkpoint → files_changed_outside unless `force`),
 * checkpoints the current state, then writes; a failure midway puts back what it wrote.
 * `record` appends a checkpoint record unless the conversation was deleted meanwhile.
 */
export async function restoreFilesBefore(
  checkpoints: Checkpoints,
  conversationId: string,
  message: RestoreMessage,
  options: RestoreOptions,
): Promise<RestoreOutcome> {
  const before = checkpointBefore(checkpoints.list(conversationId), message);
  if (!before) return NOTHING_RESTORED;
  return restoreFromCheckpoint(checkpoints, conversationId, before, null, options);
}

type RestoreOptions = { force: boolean; record: (fields: CheckpointFields) => Promise<void> };

const NOTHING_RESTORED: RestoreOutcome = { restored: [], undo: async () => {} };

/**
 * Puts the files that differ between `before` and the conversation's last checkpoint in its
 * folder back to how `before` holds them: all of them, or only those in `only` (a per-file
 * revert). The same checks and undo as a rewind's restore.
 */
export async function restoreFromCheckpoint(
  checkpoints: Checkpoints,
  conversationId: string,
  before: CheckpointRecord,
  only: string[] | null,
  options: RestoreOptions,
): Promise<RestoreOutcome> {
  const last = checkpoints.list(conversationId).filter((record) => record.cwd === before.cwd).at(-1);
  if (!last) return NOTHING_RESTORED;
  const cwd = before.cwd;
  const snapshots = checkpoints.storeFor(conversationId);
  let paths: string[];
  try {
    paths = await snapshots.changedPaths(cwd, before.tree, last.tree, only ?? undefined);
  } catch (error) {
    // The snapshots are a cache (not exported, maybe deleted): without them there is nothing known to restore (a cluster node says why).
    const unreadable = await checkpoints.unreadable(conversationId, "the files to restore", { cwd, trees: [before.tree, last.tree] }, error);
    if (unreadable) throw unreadable;
    return NOTHING_RESTORED;
  }
  if (paths.length === 0) return NOTHING_RESTORED;
  const now = await checkpoints.snapshot(cwd, conversationId);
  if ("off" in now) throw new AtriumError("bad_request", `files cannot be restored: checkpoints are off because ${now.off}`);
  const outside = await snapshots.changedPaths(cwd, last.tree, now.tree, paths);
  if (outside.length > 0 && !options.force) {
    throw new AtriumError(
      "files_changed_outside",
      `these files changed after the agent's last checkpoint: ${outside.join(", ")}; restore with force to overwrite them`,
      { details: { files: outside } },
    );
  }
  await options.record({ turnId: null, itemId: null, cwd, tree: now.tree, reason: "before_restore" });
  const undo = async () => {
    await snapshots.restore(cwd, now.tree, paths);
    const back = await checkpoints.snapshot(cwd, conversationId);
    if ("tree" in back) await options.record({ turnId: null, itemId: null, cwd, tree: back.tree, reason: "after_restore" });
  };
  try {
    await snapshots.restore(cwd, before.tree, paths);
  } catch (error) {
    await undo();
    throw error;
  }
  const after = await checkpoints.snapshot(cwd, conversationId);
  if ("tree" in after) await options.record({ turnId: null, itemId: null, cwd, tree: after.tree, reason: "after_restore" });
  return { restored: paths, undo };
}
