import type { EngineOwner } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Conversation, Item } from "../events/entities";
import { fileChangesSince, restoreBeforeMessage, revertFileBeforeTurn } from "../checkpoints/checkpoint-hooks";

type RewindSource = EngineOwner & { hasOpenTurn(): boolean; beginRestore(): Promise<void>; endRestore(): Promise<void> };

export interface RewindOptions {
  requestKey?: string;
  restoreFiles?: boolean;
  force?: boolean;
}

export interface RewindOutcome {
  conversation: Conversation;
  draft: string;
  restored: string[];
}

/**
 * Restart from an owner's message: a fork of the conversation before it, its text as the draft,
 * and with restoreFiles the working directory as it was then.
 */
export async function rewindConversation(
  actor: RewindSource,
  itemId: string,
  options: RewindOptions,
  fork: (beforeItemId: string, requestKey: string | undefined) => Promise<Conversation>,
): Promise<RewindOutcome> {
  const item = rootItem(actor, itemId);
  if (item.kind !== "user_message") throw new AtriumError("bad_request", "only the owner's messages can be restarted from");
  // Files first (checked, then restored), so a refused restore forks nothing; a failed fork puts the files back.
  if (!options.restoreFiles) return { conversation: await fork(itemId, options.requestKey), draft: item.text ?? "", restored: [] };
  // While the files are put back, nothing starts in this conversation: a message sent meanwhile waits.
  await actor.beginRestore();
  try {
    const files = await restoreBeforeMessage(actor, item, options.force ?? false);
    let conversation: Conversation;
    try {
      conversation = await fork(itemId, options.requestKey);
    } catch (error) {
      await files.undo();
      throw error;
    }
    return { conversation, draft: item.text ?? "", restored: files.restored };
  } finally {
    await actor.endRestore().catch(() => undefined);
  }
}

/**
 * "Revert to before this turn" for one file of a turn's changes: the file as the turn's first
 * checkpoint holds it, with a rewind's checks (nothing running; changed outside Atrium → asks).
 */
export async function revertFileOfTurn(actor: RewindSource, turnId: string, filePath: string, force: boolean): Promise<{ restored: string[] }> {
  await actor.beginRestore();
  try {
    return { restored: await revertFileBeforeTurn(actor, turnId, filePath, force) };
  } finally {
    await actor.endRestore().catch(() => undefined);
  }
}

/** The files changed since an owner's message: what a rewind with restoreFiles would put back. */
export async function filesChangedSinceItem(actor: EngineOwner, itemId: string): Promise<string[]> {
  return fileChangesSince(actor, rootItem(actor, itemId));
}

function rootItem(actor: EngineOwner, itemId: string): Item {
  const item = actor.root.byId.get(itemId);
  if (!item) throw new AtriumError("not_found", `item ${itemId} was not found in this conversation`);
  return item;
}
