import fs from "node:fs";
import path from "node:path";
import { canonicalJson } from "./canonical-json";
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
  if (!local.ok || !sameRecord(local.line, head.line)) return clash("a different conversation has this id here");
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

/**
 * Two lines hold the same record when they hold the same JSON, whatever the order of its keys: a
 * bundle exported from a cluster writes each record's keys in the database's order (DESIGN §10c).
 */
function sameRecord(a: string, b: string): boolean {
  return a === b || canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
}

/** Compares the complete records of every JSONL file: appends only ever extend them. */
function compareCopies(localDirectory: string, incomingDirectory: string): Comparison {
  const names = new Set([...jsonlFiles(localDirectory), ...jsonlFiles(incomingDirectory)]);
  let localAhead = false;
  let incomingAhead = false;
  for (const name of names) {
    const local = completeRecords(path.join(localDirectory, name));
    const incoming = completeRecords(path.join(incomingDirectory, name));
    if (local.length === incoming.length && isPrefix(local, incoming)) continue;
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

/** Each complete line's record as canonical JSON (a line that is not JSON stays as it is, to compare unequal). */
function completeRecords(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const lines = text.split("\n");
  lines.pop();
  return lines.map((line) => {
    try {
      return canonicalJson(JSON.parse(line));
    } catch {
      return line;
    }
  });
}

function isPrefix(prefix: string[], whole: string[]): boolean {
  return prefix.length <= whole.length && prefix.every((record, index) => whole[index] === record);
}
