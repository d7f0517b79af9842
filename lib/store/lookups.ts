import { and, desc, eq, sql } from "drizzle-orm";
import type { IndexDatabase } from "./database";
import { prepared } from "./prepared-query";
import * as tables from "./schema";

/** Small reads of the index the engine makes by id: request keys, compactions, token totals, objectives and waiting lists. */

const id = sql.placeholder("id");

export function lookupRequestKey(
  db: IndexDatabase,
  scope: string,
  key: string,
): { hash: string; reference: Record<string, unknown> } | null {
  const row = prepared(db, "lookupRequestKey", () =>
    db
      .select()
      .from(tables.requestKeys)
      .where(and(eq(tables.requestKeys.scope, sql.placeholder("scope")), eq(tables.requestKeys.key, sql.placeholder("key"))))
      .prepare(),
  ).get({ scope, key });
  return row ? { hash: row.hash, reference: JSON.parse(row.response) } : null;
}

export function latestCompaction(db: IndexDatabase, sessionId: string): { itemId: string; firstKeptItemId: string | null } | null {
  const row = lastCompactionOf(db, sessionId);
  return row ? { itemId: row.itemId, firstKeptItemId: row.firstKeptItemId } : null;
}

export type CompactionRow = typeof tables.compactions.$inferSelect;

export function lastCompactionOf(db: IndexDatabase, sessionId: string): CompactionRow | null {
  return (
    prepared(db, "lastCompactionOf", () =>
      db
        .select()
        .from(tables.compactions)
        .where(eq(tables.compactions.sessionId, id))
        .orderBy(desc(tables.compactions.at), desc(tables.compactions.itemId))
        .prepare(),
    ).get({ id: sessionId }) ?? null
  );
}

export function conversationTokenTotals(db: IndexDatabase, conversationId: string): { input: number; output: number } {
  const row = prepared(db, "conversationTokenTotals", () =>
    db
      .select({
        input: sql<number>`coalesce(sum(${tables.turns.inputTokens}), 0)`,
        output: sql<number>`coalesce(sum(${tables.turns.outputTokens}), 0)`,
      })
      .from(tables.turns)
      .where(eq(tables.turns.conversationId, id))
      .prepare(),
  ).get({ id: conversationId });
  return { input: Number(row?.input ?? 0), output: Number(row?.output ?? 0) };
}

/** Conversations whose objective has this status (recovery and webhooks look them up). */
export function conversationsWithObjective(db: IndexDatabase, status: string): string[] {
  const rows = prepared(db, "conversationsWithObjective", () =>
    db.selectDistinct({ conversationId: tables.objectives.conversationId }).from(tables.objectives).where(eq(tables.objectives.status, id)).prepare(),
  ).all({ id: status }) as Array<{ conversationId: string }>;
  return rows.map((row) => row.conversationId);
}

/** Conversations with messages on their waiting list. */
export function conversationsWithWaiting(db: IndexDatabase): string[] {
  const rows = prepared(db, "conversationsWithWaiting", () =>
    db.selectDistinct({ conversationId: tables.waiting.conversationId }).from(tables.waiting).prepare(),
  ).all() as Array<{ conversationId: string }>;
  return rows.map((row) => row.conversationId);
}
