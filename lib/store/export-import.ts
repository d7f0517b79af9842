import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { notFound } from "../errors";
import { readConversationHead, type ConversationHead } from "./conversation-head";
import { collectConversationIds } from "./conversation-ids";
import { stageImport, type ImportLimits } from "./import-staging";
import { planImport, type ImportPlan } from "./import-plan";
import { ImportClashError } from "./import-clash-error";
import { closeImportedTurns } from "./import-closing";
import { ingestConversation } from "./ingest";
import { dataPaths, type DataPaths } from "./paths";
import { renumberConversation, type IdMap } from "./renumber-conversation";
import type { Store } from "./store";

export { ImportClashError };

export interface ExportOptions {
  /** Also bundle the chain of parents named by `forkedFrom` (those present here). */
  withAncestors?: boolean;
  /** The `.tar.gz` to write. */
  output: string;
}

export interface ExportResult {
  file: string;
  /** The conversation first, then its ancestors, nearest first. */
  conversationIds: string[];
  /** An ancestor named by forkedFrom that is not on this machine (the chain stops there). */
  missingAncestors: string[];
}

/**
 * Writes one conversation directory (and with `withAncestors` its parents) as a `.tar.gz`.
 * Needs no lock: it only reads files the server appends to.
 */
export async function exportConversation(home: string, conversationId: string, options: ExportOptions): Promise<ExportResult> {
  const paths = dataPaths(home);
  const head = exportableHead(paths, conversationId);
  if (!head.ok) throw notFound("Conversation", conversationId);
  const conversationIds = [conversationId];
  const missingAncestors: string[] = [];
  let parentId = options.withAncestors ? (head.record.forkedFrom?.conversationId ?? null) : null;
  while (parentId && !conversationIds.includes(parentId)) {
    const parent = exportableHead(paths, parentId);
    if (!parent.ok) {
      missingAncestors.push(parentId);
      break;
    }
    conversationIds.push(parentId);
    parentId = parent.record.forkedFrom?.conversationId ?? null;
  }
  const file = path.resolve(options.output);
  // Written beside the target and renamed, so a failed export leaves no half archive.
  const partial = `${file}.partial-${process.pid}`;
  try {
    await tar.c({ gzip: true, portable: true, cwd: paths.conversations, file: partial }, conversationIds);
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  return { file, conversationIds, missingAncestors };
}

function exportableHead(paths: DataPaths, conversationId: string): ConversationHead {
  const head = readConversationHead(paths.metadata(conversationId));
  if (head.ok && collectConversationIds(paths.conversation(conversationId), conversationId).deleted) {
    return { ok: false, reason: "deleted" };
  }
  return head;
}

export interface ImportOptions {
  /** Give a fresh id to a conversation whose id is taken here by a different conversation. */
  newId?: boolean;
  /** Entry count and unpacked size past which a source is refused before anything is extracted. */
  limits?: ImportLimits;
}

export interface ImportedConversation {
  /** The id it has here (differs from sourceId when it was given a new one). */
  conversationId: string;
  sourceId: string;
  title: string;
  status: "added" | "replaced" | "unchanged";
  /** Records indexed (0 when unchanged). */
  records: number;
  note: string | null;
}

export interface ImportResult {
  conversations: ImportedConversation[];
}

/**
 * Imports a `.tar.gz` export or a conversation directory. Everything is staged and checked
 * inside the data directory first, so nothing reaches conversations/ unless all of it can.
 * The caller holds runtime.lock.
 */
export async function importConversations(store: Store, source: string, options: ImportOptions = {}): Promise<ImportResult> {
  const staging = fs.mkdtempSync(path.join(store.paths.home, ".import-"));
  try {
    const stagedIds = await stageImport(path.resolve(source), staging, options.limits);
    const plans = stagedIds.map((id) => planImport(store, path.join(staging, id), id));
    const clashes = plans.flatMap((plan) =>
      plan.action === "clash" ? [{ conversationId: plan.sourceId, reason: plan.reason }] : [],
    );
    if (clashes.length > 0 && !options.newId) throw new ImportClashError(clashes);

    const renumbered = new Map<string, IdMap>();
    for (const plan of plans) {
      if (plan.action === "clash") renumbered.set(plan.sourceId, new Map(plan.ids.map((id) => [id, store.newId()])));
    }
    const conversations: ImportedConversation[] = [];
    for (const plan of plans) conversations.push(await applyPlan(store, staging, plan, renumbered));
    return { conversations };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function applyPlan(
  store: Store,
  staging: string,
  plan: ImportPlan,
  renumbered: ReadonlyMap<string, IdMap>,
): Promise<ImportedConversation> {
  const staged = path.join(staging, plan.sourceId);
  const summary = { sourceId: plan.sourceId, title: plan.title };
  if (plan.action === "keep") {
    return { ...summary, conversationId: plan.sourceId, status: "unchanged", records: 0, note: plan.reason };
  }
  const ownIds = renumbered.get(plan.sourceId);
  const parentIds = plan.parentId ? (renumbered.get(plan.parentId) ?? null) : null;
  // A replaced copy keeps its first line untouched: that line is what makes it the same conversation.
  if (ownIds || (parentIds && plan.action !== "replace")) renumberConversation(staged, ownIds ?? new Map(), parentIds);
  const conversationId = ownIds?.get(plan.sourceId) ?? plan.sourceId;
  const target = store.paths.conversation(conversationId);
  if (plan.action === "replace") {
    await store.closeConversation(conversationId);
    // The copy coming in extends this one, so the old directory is only set aside, then removed.
    const previous = path.join(staging, `previous-${conversationId}`);
    fs.renameSync(target, previous);
    fs.renameSync(staged, target);
    fs.rmSync(previous, { recursive: true, force: true });
  } else {
    fs.renameSync(staged, target);
  }
  const outcome = ingestConversation(store, conversationId);
  const records = outcome.status === "indexed" ? outcome.records : 0;
  const closed = outcome.status === "indexed" ? await closeImportedTurns(store, conversationId) : 0;
  const notes = [
    plan.action === "clash" ? `given the new id ${conversationId} (${plan.reason})` : null,
    outcome.status === "skipped" ? `not indexed: ${outcome.reason}` : null,
    closed > 0 ? `${closed} open turn${closed === 1 ? "" : "s"} closed as interrupted (imported); nothing of it runs here` : null,
  ].filter((note): note is string => note !== null);
  const note = notes.length > 0 ? notes.join("; ") : null;
  return { ...summary, conversationId, status: plan.action === "replace" ? "replaced" : "added", records, note };
}
