import fs from "node:fs";
import path from "node:path";
import { isId } from "./ids";
import { readJsonl } from "./jsonl-reader";
import { metadataRecordSchema, sessionRecordSchema } from "./records";
import type { Store } from "./store";

export interface ConversationIds {
  /** Every id the conversation defines (itself first), each a primary key somewhere in the index. */
  ids: string[];
  /** The session files in the directory, by session id. */
  sessionIds: string[];
  /** metadata.jsonl holds a tombstone. */
  deleted: boolean;
}

/** Reads a conversation directory for the ids it defines (sessions, turns, items, queued messages, …). */
export function collectConversationIds(directory: string, conversationId: string): ConversationIds {
  const ids = new Set<string>([conversationId]);
  let deleted = false;
  for (const { record } of readJsonl(path.join(directory, "metadata.jsonl"), metadataRecordSchema).records) {
    switch (record.type) {
      case "conversation.created":
        ids.add(record.rootSessionId);
        break;
      case "conversation.deleted":
        deleted = true;
        break;
      case "session.created":
        ids.add(record.sessionId);
        break;
      case "turn.started":
        ids.add(record.turnId);
        break;
      case "queue.added":
        ids.add(record.messageId);
        break;
      case "approval.requested":
        ids.add(record.approvalId);
        break;
      case "question.asked":
        ids.add(record.questionId);
        break;
      case "objective.opened":
        ids.add(record.objectiveId);
        break;
    }
  }
  const sessionIds = fs
    .readdirSync(directory)
    .filter((name) => name.endsWith(".jsonl") && isId(name.slice(0, -6)))
    .map((name) => name.slice(0, -6))
    .sort();
  for (const sessionId of sessionIds) {
    ids.add(sessionId);
    for (const { record } of readJsonl(path.join(directory, `${sessionId}.jsonl`), sessionRecordSchema).records) {
      if (record.type === "item.created") ids.add(record.item.id);
    }
  }
  return { ids: [...ids], sessionIds, deleted };
}

const ID_TABLES = ["sessions", "turns", "items", "waiting", "approvals", "questions", "objectives"] as const;

/**
 * The first conversation other than `conversationId` that already owns one of `ids` in the
 * index. Those ids are primary keys, so importing over them would steal that conversation's rows.
 */
export function findForeignOwner(store: Store, ids: string[], conversationId: string): string | null {
  const client = store.index.$client;
  const lookups = ID_TABLES.map((table) => client.prepare(`SELECT conversation_id FROM ${table} WHERE id = ?`));
  for (const id of ids) {
    for (const lookup of lookups) {
      const row = lookup.get(id) as { conversation_id: string } | undefined;
      if (row && row.conversation_id !== conversationId) return row.conversation_id;
    }
  }
  return null;
}
