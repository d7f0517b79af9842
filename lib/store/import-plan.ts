import fs from "node:fs";
import path from "node:path";
import { badRequest } from "../errors";
import { readConversationHead } from "./conversation-head";
import { collectConversationIds, findForeignOwner } from "./conversation-ids";
import type { Store } from "./store";

export type ImportPlan = {
  sourceId: string;
  title: string;
  /** The parent named by forkedFrom in the source, if any. */
  parentId: string | null;
  ids: string[];
} & (
  | { action: "add" }
  | { action: "replace" }
  | { action: "keep"; reason: string }
  | { action: "clash"; reason: string }
);

/**
 * Decides what importing one staged conversation does here. The same conversation is the
 * same `conversation.created` line: a copy that only extends this machine's files replaces
 * them, one this machine's files already extend is kept as is. Anything else with this id
 * (or with ids another conversation here already owns) is a clash.
 */
export function planImport(store: Store, stagedDirectory: string, sourceId: string): ImportPlan {
  const head = readConversationHead(path.join(stagedDirectory, "metadata.jsonl"));
  if (!head.ok) throw badRequest(`conversation ${sourceId} cannot be imported: ${head.reason}`);
  if (head.record.conversationId !== sourceId) {
    throw badRequest(`conversation ${sourceId} cannot be imported: its conversation.created names ${head.record.conversationId}`);
  }
  const staged = collectConversationIds(stagedDirectory, sourceId);
  if (staged.deleted) throw badRequest(`conversation ${sourceId} cannot be imported: it was deleted (it holds a tombstone)`);
  const base = {
    sourceId,
    title: head.record.title,
    parentId: head.record.forkedFrom?.conversationId ?? null,
    ids: staged.ids,
  };
  const clash = (reason: string): ImportPlan => ({ ...base, action: "clash", reason });
  const foreignOwner = findForeignOwner(store, staged.ids, sourceId);
  if (foreignOwner) return clash(`its sessions or items have the ids of conversation ${foreignOwner} here`);

  const localDirectory = store.paths.conversation(sourceId);
  if (!fs.existsSync(localDirectory)) return { ...base, action: "add" };
  const local = readConversationHead(path.join(localDirectory, "metadata.jsonl"));
  if (!local.ok || local.line !== head.line) return clash("a different conversation has this id here");
  if (collectConversationIds(localDirectory, sourceId).deleted) return { ...base, action: "replace" };
  switch (compareCopies(localDirectory, stagedDirectory)) {
    case "same":
      return { ...base, action: "keep", reason: "already up to date" };
    case "local-ahead":
      return { ...base, action: "keep", reason: "the copy here is newer; kept it" };
    case "incoming-ahead":
      return { ...base, action: "replace" };
    case "diverged":
      return clash("the copy here and the imported one each hold records the other lacks");
  }
}

type Comparison = "same" | "local-ahead" | "incoming-ahead" | "diverged";

/** Compares the complete lines of every JSONL file: appends only ever extend them. */
function compareCopies(localDirectory: string, incomingDirectory: string): Comparison {
  const names = new Set([...jsonlFiles(localDirectory), ...jsonlFiles(incomingDirectory)]);
  let localAhead = false;
  let incomingAhead = false;
  for (const name of names) {
    const local = completeLines(path.join(localDirectory, name));
    const incoming = completeLines(path.join(incomingDirectory, name));
    if (local.equals(incoming)) continue;
    if (isPrefix(local, incoming)) incomingAhead = true;
    else if (isPrefix(incoming, local)) localAhead = true;
    else return "diverged";
  }
  if (localAhead && incomingAhead) return "diverged";
  if (localAhead) return "local-ahead";
  return incomingAhead ? "incoming-ahead" : "same";
}

function jsonlFiles(directory: string): string[] {
  return fs.readdirSync(directory).filter((name) => name.endsWith(".jsonl"));
}

function completeLines(file: string): Buffer {
  try {
    const buffer = fs.readFileSync(file);
    return buffer.subarray(0, buffer.lastIndexOf(10) + 1);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}

function isPrefix(prefix: Buffer, whole: Buffer): boolean {
  return prefix.length <= whole.length && whole.subarray(0, prefix.length).equals(prefix);
}
