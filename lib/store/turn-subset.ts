import { and, asc, desc, eq, inArray, or } from "drizzle-orm";
import type { Turn } from "./entities";
import type { IndexDatabase } from "./database";
import { toTurn } from "./queries";
import * as tables from "./schema";

/** Which of a session's turns a page of its history needs (see turnsFor in the workspace data). */
export interface TurnSubset {
  sessionId: string;
  /** The turns of the items shown. */
  ids: string[];
  /** The latest this many turns too. */
  recent: number;
}

const KEPT_STATUSES = ["failed", "running", "waiting_approval", "waiting_user"];

/**
 * A session's turns that are named, open or failed, or among the latest few, oldest first:
 * one query on the conversation's index rows instead of every turn of a long conversation
 * turned into an object (5,000 turns cost 100 ms or more per page).
 */
export function listTurnSubset(db: IndexDatabase, conversationId: string, subset: TurnSubset): Turn[] {
  const { turns } = tables;
  const ofSession = and(eq(turns.conversationId, conversationId), eq(turns.sessionId, subset.sessionId));
  const recent = db.select({ id: turns.id }).from(turns).where(ofSession).orderBy(desc(turns.startedAt), desc(turns.id)).limit(subset.recent);
  const wanted = [inArray(turns.status, KEPT_STATUSES), inArray(turns.id, recent)];
  if (subset.ids.length > 0) wanted.push(inArray(turns.id, subset.ids));
  return db
    .select()
    .from(turns)
    .where(and(ofSession, or(...wanted)))
    .orderBy(asc(turns.startedAt), asc(turns.id))
    .all()
    .map(toTurn);
}
