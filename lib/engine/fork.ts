import type { OwnerContext } from "./engine-owner";
import fs from "node:fs";
import path from "node:path";
import { contextItems } from "../context/compaction";
import { AtriumError, storageError } from "../errors";
import { ConversationStaging } from "../store/conversation-staging";
import type { DataPaths } from "../store/paths";
import type { Item } from "../events/entities";
import { isId } from "../store/ids";
import type { StoredItem } from "../store/records";
import { attachmentFileName, attachmentPath } from "../store/uploads";
import type { ConversationActor } from "./conversation-actor";
import { derivedTitle } from "./titles";

export interface ForkOptions {
  /** Copy up to and including this item. */
  throughItemId?: string;
  /** Copy up to, not including, this item (rewind). */
  beforeItemId?: string;
  keyed: { requestKey?: string; requestHash?: string };
}

/**
 * Copies the root agent's finished history into a new conversation (DESIGN §2): not the
 * subagents, the waiting messages or the archived state. Items get new ids.
 */
export async function forkConversation(context: OwnerContext, source: ConversationActor, options: ForkOptions): Promise<string> {
  const store = context.store;
  const conversationId = store.newId();
  const rootSessionId = store.newId();
  // The source is read, and its files copied, as one command of its owner: a delete cannot
  // remove them part-way. The new conversation is written under a staging name, outside it.
  const read = await source.locked(async () => {
    const conversation = source.conversation();
    const root = source.root;
    // After a compaction the fork starts from the latest summary (DESIGN §2), unless the cut
    // lies before it, in which case only older items are copied and no summary is needed.
    const visible = contextItems(root.items, root.compaction);
    const target = options.beforeItemId ?? options.throughItemId;
    const fromSummary = root.compaction !== null && (target === undefined || visible.some((item) => item.id === target));
    const copied = selectItems(fromSummary ? visible : root.items, root.runner?.turn.id ?? null, options).map((item) => ({ ...item }));
    const staging = ConversationStaging.begin(store, conversationId);
    try {
      // A node of a cluster copies them inside the database (DESIGN §10c); a single server into the staging directory.
      if (store.cluster) await store.files.copyFiles(source.id, conversationId, referencedFiles(copied));
      else copyReferencedFiles(store.paths, source.id, staging, copied);
    } catch (error) {
      void staging.abandon();
      throw storageError(error, "the fork");
    }
    return { conversation, agent: root.agent, model: root.model, calibration: root.calibration, fromSummary, copied, staging };
  });
  const { conversation, copied, staging, fromSummary } = read;
  try {
    await staging.appendMetadata({
      type: "conversation.created",
      conversationId,
      title: derivedTitle(conversation.title, options.beforeItemId !== undefined ? "restart" : "fork"),
      titleSource: conversation.titleSource,
      agent: conversation.agent,
      model: conversation.model,
      effort: conversation.effort,
      cwd: conversation.cwd,
      executor: conversation.machine,
      rootSessionId,
      forkedFrom: {
        conversationId: source.id,
        itemId: copied.length ? copied[copied.length - 1].id : null,
        ...(options.beforeItemId !== undefined ? { restartOf: options.beforeItemId } : {}),
      },
      ...options.keyed,
    });
    // The copy is the same content, so it keeps its origin's calibration: a fork shows the same figure.
    const calibration = read.calibration === null ? {} : { contextCalibration: read.calibration };
    await staging.appendMetadata({ type: "session.created", sessionId: rootSessionId, agent: read.agent, model: read.model, parentSessionId: null, depth: 0, ...calibration });
    const newIds = new Map(copied.map((item) => [item.id, store.newId()]));
    await Promise.all(
      copied.map((item) => staging.appendSession(rootSessionId, { type: "item.created", item: copyItem(item, newIds.get(item.id)!, rootSessionId) })),
    );
    const summary = copied[0];
    if (fromSummary && summary?.kind === "compaction_summary") {
      await staging.appendMetadata({
        type: "compaction",
        sessionId: rootSessionId,
        itemId: newIds.get(summary.id)!,
        tokensBefore: 0,
        tokensAfter: 0,
        firstKeptItemId: copied[1] ? newIds.get(copied[1].id)! : null,
      });
    }
    await staging.commit();
  } catch (error) {
    await staging.abandon();
    throw storageError(error, "the fork");
  }
  return conversationId;
}

function selectItems(items: readonly Item[], runningTurnId: string | null, options: ForkOptions): Item[] {
  const finished = items.filter(
    (item) =>
      item.status !== "streaming" && item.status !== "waiting" && (runningTurnId === null || item.turnId !== runningTurnId),
  );
  if (options.beforeItemId) {
    const index = items.findIndex((item) => item.id === options.beforeItemId);
    if (index === -1) throw new AtriumError("not_found", `item ${options.beforeItemId} was not found in this conversation`);
    return finished.filter((item) => items.indexOf(item) < index);
  }
  if (options.throughItemId) {
    const index = items.findIndex((item) => item.id === options.throughItemId);
    if (index === -1) throw new AtriumError("not_found", `item ${options.throughItemId} was not found in this conversation`);
    return finished.filter((item) => items.indexOf(item) <= index);
  }
  return finished;
}

function copyItem(item: Item, id: string, sessionId: string): StoredItem {
  const { seq: _seq, ...rest } = item;
  return { ...rest, id, sessionId } as StoredItem;
}

/** The files the copied items refer to, as paths in a conversation's directory (malformed ids left out). */
function referencedFiles(items: readonly Item[]): string[] {
  return items.flatMap((item) => [
    ...(item.artifactId && isId(item.artifactId) ? [`artifacts/${item.artifactId}`] : []),
    ...(item.attachments ?? []).filter((attachment) => isId(attachment.id)).map((attachment) => `attachments/${attachmentFileName(attachment)}`),
  ]);
}

/** Artifacts and attachments the copied items refer to travel with them. */
function copyReferencedFiles(paths: DataPaths, fromId: string, staging: ConversationStaging, items: readonly Item[]): void {
  for (const item of items) {
    // A malformed id from an imported record is skipped like a bad attachment, never a failed fork.
    if (item.artifactId && isId(item.artifactId)) {
      const from = paths.artifact(fromId, item.artifactId);
      if (fs.existsSync(from)) staging.copyFile(from, path.join("artifacts", path.basename(from)));
    }
    for (const attachment of item.attachments ?? []) {
      // The record may come from an import: its id and name decide a path only through attachmentPath's checks.
      if (!isId(attachment.id)) continue;
      const from = attachmentPath(paths, fromId, attachment);
      if (fs.existsSync(from)) staging.copyFile(from, path.join("attachments", path.basename(from)));
    }
  }
}
