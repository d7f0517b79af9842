import { and, asc, eq, isNotNull } from "drizzle-orm";
import type { IndexDatabase } from "./database";
import * as tables from "./schema";

export interface RestartLink {
  id: string;
  title: string;
  /** The parent's message this conversation restarts. */
  restartOf: string;
  createdAt: string;
}

/** The restarts made from a conversation's messages, oldest first ("Restart from here" on each). */
export function restartsOf(db: IndexDatabase, conversationId: string): RestartLink[] {
  const rows = db
    .select({ id: tables.conversations.id, title: tables.conversations.title, restartOf: tables.conversations.restartOfItemId, createdAt: tables.conversations.createdAt })
    .from(tables.conversations)
    .where(and(eq(tables.conversations.forkedFromConversationId, conversationId), isNotNull(tables.conversations.restartOfItemId)))
    .orderBy(asc(tables.conversations.createdAt), asc(tables.conversations.id))
    .all();
  return rows.map(toRestartLink);
}

export function toRestartLink(row: { id: string; title: string; restartOf: string | null; createdAt: string }): RestartLink {
  return { id: row.id, title: row.title, restartOf: row.restartOf ?? "", createdAt: row.createdAt };
}
