import path from "node:path";
import type { CheckpointFields, CheckpointReason } from "./checkpoints";
import { filesChangedSince, restoreFilesBefore, restoreFromCheckpoint, type RestoreOutcome } from "./restore-files";
import { AtriumError, isStorageError } from "../errors";
import type { Item } from "../events/entities";
import type { ConversationOwner, TurnHandle } from "../ports/owner-port";

/** The owner as a rewind sees it: it must also tell whether a turn could still be changing files. */
type RewindSource = ConversationOwner & { hasOpenTurn(): boolean };

/**
 * Where the engine meets lib/checkpoints: a snapshot at each turn's start and after each
 * tool that can change files, and the file side of a rewind. Snapshots are slow I/O, so
 * they run outside the conversation's lock; a turn stops waiting for one when interrupted.
 */

const FILE_TOOLS = new Set(["shell", "write_file", "edit_file"]);

export function changesFiles(toolName: string | undefined): boolean {
  return toolName !== undefined && (FILE_TOOLS.has(toolName) || toolName.startsWith("mcp__"));
}

export function checkpointTurnStart(runner: TurnHandle): Promise<void> {
  return checkpoint(runner, null, "turn_start");
}

export async function checkpointAfterTool(runner: TurnHandle, item: Item): Promise<void> {
  if (changesFiles(item.toolName)) await checkpoint(runner, item.id, "tool");
}

async function checkpoint(runner: TurnHandle, itemId: string | null, reason: CheckpointReason): Promise<void> {
  const { actor, session } = runner;
  const checkpoints = actor.context.checkpoints;
  if (!checkpoints) return;
  const { cwd, machine } = actor.conversation();
  // At a turn's start a linked machine's project files (AGENTS.md) are read again; its snapshots are taken there.
  if (reason === "turn_start" && actor.context.machines && !actor.context.machines.isLocal(machine)) {
    await untilAborted(actor.context.machines.refreshProject(machine, cwd), runner.signal);
  }
  // A cwd inside Atrium's data directory is never snapshotted (the snapshots would contain themselves).
  if (isInside(cwd, actor.context.store.paths.home)) return;
  // The files as of now: an interrupted turn stops waiting, and the record may then come later.
  const takenAt = actor.context.store.now().toISOString();
  let queued!: () => void;
  const recordQueued = new Promise<void>((resolve) => (queued = resolve));
  const work = (async () => {
    const outcome = await checkpoints.snapshot(cwd, actor.id);
    // A new turn's start may still be on its way to disk: the record queues behind it, and the owner refuses it if the disk refused the start.
    if ("tree" in outcome) {
      // recordCheckpoint takes its place in the owner's queue synchronously, as it is called.
      const recorded = actor.recordCheckpoint({ turnId: runner.turn.id, itemId, cwd, tree: outcome.tree, reason, takenAt });
      queued();
      await recorded;
      return;
    }
    queued();
    const text = `Checkpoints are off: ${outcome.off}. Files changed in this conversation cannot be restored by "Restart from here".`;
    if (runner.signal.aborted || session.items.some((item) => item.kind === "notice" && item.text === text)) return;
    await actor.createItem(session, { turnId: runner.turn.id, kind: "notice", status: "completed", text });
  })()
    .catch((error: unknown) => {
      actor.context.log(`checkpoint of ${cwd} failed: ${error instanceof Error ? error.message : String(error)}`);
      // A record the disk refused: no tool may change a file without it (DESIGN §2, storage faults).
      if (isStorageError(error)) runner.failOnStorage({ code: error.code, message: error.message });
    })
    .finally(() => queued());
  checkpoints.track(actor.id, work);
  // A new turn's model call waits for the files, not for their record's flush: the record is in
  // the owner's queue before anything the turn writes next (its items, its tool calls, its end),
  // so it is on disk before any tool of the turn can run. A turn that already has tool calls (a
  // parked turn resumed after a restart) may run one at once, so it waits for the record itself.
  const fresh = reason === "turn_start" && !session.items.some((item) => item.turnId === runner.turn.id && item.kind === "tool_call");
  await untilAborted(fresh ? recordQueued : work, runner.signal);
}

export async function fileChangesSince(actor: ConversationOwner, message: Item): Promise<string[]> {
  const checkpoints = actor.context.checkpoints;
  if (!checkpoints) return [];
  await checkpoints.settled(actor.id);
  return filesChangedSince(checkpoints, actor.id, message);
}

/** The file side of a rewind with restoreFiles; refused while a turn could still be changing files. */
export async function restoreBeforeMessage(actor: RewindSource, message: Item, force: boolean): Promise<RestoreOutcome> {
  const checkpoints = actor.context.checkpoints;
  if (!checkpoints) return { restored: [], undo: async () => {} };
  if (actor.hasOpenTurn()) {
    throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it before restoring files");
  }
  // An interrupted turn's last snapshot may still be on its way: the restore must see it.
  await checkpoints.settled(actor.id);
  return restoreFilesBefore(checkpoints, actor.id, message, {
    force,
    record: (fields) => actor.recordCheckpoint(fields),
  });
}

/** One file a turn changed, back to how the turn's first checkpoint holds it; the paths restored ([] when it already is). */
export async function revertFileBeforeTurn(actor: RewindSource, turnId: string, filePath: string, force: boolean): Promise<string[]> {
  const checkpoints = actor.context.checkpoints;
  if (!checkpoints) throw new AtriumError("bad_request", "checkpoints are off: files cannot be reverted");
  if (actor.hasOpenTurn()) {
    throw new AtriumError("turn_running", "a turn of this conversation is running; interrupt it before reverting files");
  }
  await checkpoints.settled(actor.id);
  const ofTurn = checkpoints.list(actor.id).filter((record) => record.turnId === turnId);
  const first = ofTurn[0];
  const end = ofTurn.at(-1);
  const changed = first && end && first.cwd === end.cwd ? await checkpoints.storeFor(actor.id).changedPaths(first.cwd, first.tree, end.tree, [filePath]).catch(() => []) : [];
  if (!first || changed.length === 0) throw new AtriumError("bad_request", `${filePath} is not among the files this turn changed`);
  const outcome = await restoreFromCheckpoint(checkpoints, actor.id, first, [filePath], { force, record: (fields) => actor.recordCheckpoint(fields) });
  return outcome.restored;
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    void work.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** After a fork or rewind: the new conversation gets the checkpoints taken before its cut. */
export async function copyCheckpointsToFork(
  source: ConversationOwner,
  options: { throughItemId?: string; beforeItemId?: string },
  /** The fork's owner recording one copied checkpoint (its record_checkpoint command). */
  record: (fields: CheckpointFields) => Promise<void>,
): Promise<void> {
  const checkpoints = source.context.checkpoints;
  if (!checkpoints) return;
  await checkpoints.settled(source.id);
  const items = source.root.items;
  const target = options.beforeItemId ?? options.throughItemId;
  const index = target ? items.findIndex((item) => item.id === target) : -1;
  const firstLeftOut = index === -1 ? undefined : options.beforeItemId ? items[index] : items[index + 1];
  await checkpoints.copy(firstLeftOut?.createdAt ?? null, source.root.runner?.turn.id ?? null, source.id, record);
}
