import { and, count, eq, gt, inArray, isNotNull, like, lt, max, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import type { Objective } from "../entities";
import { SEARCH_CANDIDATE_LIMIT } from "../conversation-search";
import type { ConversationListQuery, IndexedConversation, IndexReads, IndexReadsOptions } from "../index-reads";
import { attachmentAmong } from "../item-attachments";
import { toRestartLink } from "../lineage";
import type { CompactionRow } from "../lookups";
import { RECENT_PROJECTS_LIMIT, toProject } from "../projects";
import { toApproval, toConversation, toItem, toObjective, toQuestion, toSession, toTurn, toWaiting, type ConversationRow, type DecisionFilter } from "../queries";
import type { TurnSubset } from "../turn-subset";
import * as tables from "./index-tables";
import { postgresSearch, postgresSearchCandidates, postgresSessionHits } from "./postgres-search";

/*
 * SQLite puts NULLs first in ascending order and last in descending order; PostgreSQL does the
 * opposite. Every ORDER BY here says where NULLs go, as SQLite has them, whether or not the
 * column may hold one today.
 */
const ascending = (column: AnyColumn | SQL) => sql`${column} ASC NULLS FIRST`;
const descending = (column: AnyColumn | SQL) => sql`${column} DESC NULLS LAST`;

const OPEN_STATUSES = ["running", "waiting_approval", "waiting_user"];
/** As lib/store/turn-subset.ts keeps them. */
const KEPT_STATUSES = ["failed", "running", "waiting_approval", "waiting_user"];

/**
 * The index reads of a cluster (DESIGN §10c, issue 24) from the atrium_index_* tables, answering
 * exactly what SqliteIndexReads answers: the same mappers over rows of the same types, the same
 * order (text is COLLATE "C", NULLs placed as SQLite places them, the same tie-breaks), the same
 * cursors. Loaded only on a node of a cluster.
 */
export class PostgresIndexReads implements IndexReads {
  private readonly db: NodePgDatabase;
  private readonly searchCandidateLimit: number;

  constructor(pool: Pool, options: IndexReadsOptions = {}) {
    this.db = drizzle({ client: pool });
    this.searchCandidateLimit = options.searchCandidateLimit ?? SEARCH_CANDIDATE_LIMIT;
  }

  async conversationRow(conversationId: string): Promise<ConversationRow | undefined> {
    const [row] = await this.db.select().from(tables.conversations).where(eq(tables.conversations.id, conversationId));
    return row;
  }

  async conversation(conversationId: string): Promise<IndexedConversation | null> {
    const row = await this.conversationRow(conversationId);
    return row ? toConversation(row, await this.objectiveFor(conversationId)) : null;
  }

  async listConversations(query: ConversationListQuery): Promise<{ conversations: IndexedConversation[]; total: number }> {
    const c = tables.conversations;
    const filters: SQL[] = [];
    if (query.archived !== "all") filters.push(eq(c.archived, query.archived === "true"));
    if (query.model) filters.push(eq(c.model, query.model));
    if (query.q) {
      // As listConversationRows: the candidates of the newest matches, then the list's order among them.
      const search = postgresSearch(query.q);
      const candidates = search ? await postgresSearchCandidates(this.db, search, { archived: query.archived, model: query.model }, this.searchCandidateLimit) : [];
      if (candidates.length === 0) return { conversations: [], total: 0 };
      filters.push(inArray(c.id, candidates));
    }
    const where = filters.length > 0 ? and(...filters) : undefined;
    const sorted = { updated: c.updatedAt, created: c.createdAt, title: c.title, model: c.model }[query.sort ?? "updated"];
    const order = query.direction === "asc" ? ascending : descending;
    const [rows, counted] = await Promise.all([
      this.db.select().from(c).where(where).orderBy(order(sorted), order(c.id)).limit(query.limit).offset(query.offset),
      this.db.select({ total: count() }).from(c).where(where),
    ]);
    const objectives = await this.latestObjectives(rows.map((row) => row.id));
    return { conversations: rows.map((row) => toConversation(row, objectives.get(row.id) ?? null)), total: counted[0]?.total ?? 0 };
  }

  async objectiveFor(conversationId: string) {
    return (await this.latestObjectives([conversationId])).get(conversationId) ?? null;
  }

  /** The newest objective of each conversation named, in one query (objectiveFor's order: createdAt, then id). */
  private async latestObjectives(conversationIds: string[]): Promise<Map<string, Objective>> {
    if (conversationIds.length === 0) return new Map();
    const o = tables.objectives;
    const rows = await this.db
      .selectDistinctOn([o.conversationId])
      .from(o)
      .where(inArray(o.conversationId, conversationIds))
      .orderBy(o.conversationId, descending(o.createdAt), descending(o.id));
    return new Map(rows.map((row) => [row.conversationId, toObjective(row)]));
  }

  async listItems(sessionId: string, after: number, limit: number) {
    const { items } = tables;
    const rows = await this.db
      .select()
      .from(items)
      .where(and(eq(items.sessionId, sessionId), gt(items.seq, after)))
      .orderBy(ascending(items.seq))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    return { items: page.map(toItem), nextCursor: rows.length > limit ? page[page.length - 1]!.seq : null };
  }

  async listItemsBefore(sessionId: string, before: number, limit: number) {
    const { items } = tables;
    const rows = await this.db
      .select()
      .from(items)
      .where(and(eq(items.sessionId, sessionId), lt(items.seq, before)))
      .orderBy(descending(items.seq))
      .limit(limit + 1);
    const page = rows.slice(0, limit).reverse().map(toItem);
    return { items: page, nextCursor: rows.length > limit ? page[0]!.seq : null };
  }

  async getItem(itemId: string) {
    const [row] = await this.db.select().from(tables.items).where(eq(tables.items.id, itemId));
    return row ? toItem(row) : null;
  }

  async searchSessionItems(conversationId: string, sessionId: string, text: string, page: { after: number } | { before: number }, limit: number) {
    return postgresSessionHits(this.db, { conversationId, sessionId }, text, page, limit);
  }

  async attachment(conversationId: string, attachmentId: string) {
    const { items } = tables;
    const rows = await this.db
      .select({ attachments: items.attachments })
      .from(items)
      .where(and(eq(items.conversationId, conversationId), like(items.attachments, `%${attachmentId}%`)));
    return attachmentAmong(rows.map((row) => row.attachments), attachmentId);
  }

  async itemConversation(itemId: string) {
    const [row] = await this.db.select({ conversationId: tables.items.conversationId }).from(tables.items).where(eq(tables.items.id, itemId));
    return row?.conversationId ?? null;
  }

  async listTurns(conversationId: string, sessionId?: string) {
    const { turns } = tables;
    const filters = [eq(turns.conversationId, conversationId)];
    if (sessionId) filters.push(eq(turns.sessionId, sessionId));
    const rows = await this.db.select().from(turns).where(and(...filters)).orderBy(ascending(turns.startedAt), ascending(turns.id));
    return rows.map(toTurn);
  }

  async listTurnSubset(conversationId: string, subset: TurnSubset) {
    const { turns } = tables;
    const ofSession = and(eq(turns.conversationId, conversationId), eq(turns.sessionId, subset.sessionId));
    const recent = this.db.select({ id: turns.id }).from(turns).where(ofSession).orderBy(descending(turns.startedAt), descending(turns.id)).limit(subset.recent);
    const wanted = [inArray(turns.status, KEPT_STATUSES), inArray(turns.id, recent)];
    if (subset.ids.length > 0) wanted.push(inArray(turns.id, subset.ids));
    const rows = await this.db
      .select()
      .from(turns)
      .where(and(ofSession, or(...wanted)))
      .orderBy(ascending(turns.startedAt), ascending(turns.id));
    return rows.map(toTurn);
  }

  async getTurn(turnId: string) {
    const [row] = await this.db.select().from(tables.turns).where(eq(tables.turns.id, turnId));
    return row ? toTurn(row) : null;
  }

  async openTurns() {
    const rows = await this.db.select().from(tables.turns).where(inArray(tables.turns.status, OPEN_STATUSES));
    return rows.map(toTurn);
  }

  async listWaiting(conversationId: string) {
    const { waiting } = tables;
    const rows = await this.db.select().from(waiting).where(eq(waiting.conversationId, conversationId)).orderBy(ascending(waiting.position));
    return rows.map(toWaiting);
  }

  async listSessions(conversationId: string) {
    const { sessions } = tables;
    const rows = await this.db.select().from(sessions).where(eq(sessions.conversationId, conversationId)).orderBy(ascending(sessions.createdAt), ascending(sessions.id));
    return rows.map(toSession);
  }

  async listApprovals(filter: DecisionFilter) {
    const { approvals } = tables;
    const rows = await this.db.select().from(approvals).where(decisionWhere(approvals, filter)).orderBy(ascending(approvals.createdAt), ascending(approvals.id));
    return rows.map(toApproval);
  }

  async getApproval(approvalId: string) {
    const [row] = await this.db.select().from(tables.approvals).where(eq(tables.approvals.id, approvalId));
    return row ? toApproval(row) : null;
  }

  async listQuestions(filter: DecisionFilter) {
    const { questions } = tables;
    const rows = await this.db.select().from(questions).where(decisionWhere(questions, filter)).orderBy(ascending(questions.createdAt), ascending(questions.id));
    return rows.map(toQuestion);
  }

  async getQuestion(questionId: string) {
    const [row] = await this.db.select().from(tables.questions).where(eq(tables.questions.id, questionId));
    return row ? toQuestion(row) : null;
  }

  async lookupRequestKey(scope: string, key: string) {
    const { requestKeys } = tables;
    const [row] = await this.db.select().from(requestKeys).where(and(eq(requestKeys.scope, scope), eq(requestKeys.key, key)));
    return row ? { hash: row.hash, reference: JSON.parse(row.response) as Record<string, unknown> } : null;
  }

  async latestCompaction(sessionId: string) {
    const row = await this.lastCompactionOf(sessionId);
    return row ? { itemId: row.itemId, firstKeptItemId: row.firstKeptItemId } : null;
  }

  async lastCompactionOf(sessionId: string): Promise<CompactionRow | null> {
    const { compactions } = tables;
    const [row] = await this.db
      .select()
      .from(compactions)
      .where(eq(compactions.sessionId, sessionId))
      .orderBy(descending(compactions.at), descending(compactions.itemId))
      .limit(1);
    return row ?? null;
  }

  async conversationTokenTotals(conversationId: string) {
    const { turns } = tables;
    // sum() of a bigint is numeric in PostgreSQL, which node-postgres hands over as a string.
    const [row] = await this.db
      .select({ input: sql<string>`coalesce(sum(${turns.inputTokens}), 0)`, output: sql<string>`coalesce(sum(${turns.outputTokens}), 0)` })
      .from(turns)
      .where(eq(turns.conversationId, conversationId));
    return { input: Number(row?.input ?? 0), output: Number(row?.output ?? 0) };
  }

  async conversationsWithObjective(status: string) {
    const { objectives } = tables;
    const rows = await this.db.selectDistinct({ conversationId: objectives.conversationId }).from(objectives).where(eq(objectives.status, status));
    return rows.map((row) => row.conversationId);
  }

  async conversationsWithWaiting() {
    const rows = await this.db.selectDistinct({ conversationId: tables.waiting.conversationId }).from(tables.waiting);
    return rows.map((row) => row.conversationId);
  }

  async restartsOf(conversationId: string) {
    const c = tables.conversations;
    const rows = await this.db
      .select({ id: c.id, title: c.title, restartOf: c.restartOfItemId, createdAt: c.createdAt })
      .from(c)
      .where(and(eq(c.forkedFromConversationId, conversationId), isNotNull(c.restartOfItemId)))
      .orderBy(ascending(c.createdAt), ascending(c.id));
    return rows.map(toRestartLink);
  }

  async recentProjects(filter: { machine?: string; agent?: string; limit?: number } = {}) {
    const c = tables.conversations;
    const lastUsedAt = max(c.updatedAt);
    const conditions = [...(filter.machine === undefined ? [] : [eq(c.executor, filter.machine)]), ...(filter.agent === undefined ? [] : [eq(c.agent, filter.agent)])];
    const rows = await this.db
      .select({ machine: c.executor, path: c.cwd, lastUsedAt })
      .from(c)
      .where(conditions.length === 0 ? undefined : and(...conditions))
      .groupBy(c.executor, c.cwd)
      .orderBy(descending(lastUsedAt), ascending(c.cwd), ascending(c.executor))
      .limit(filter.limit ?? RECENT_PROJECTS_LIMIT);
    return rows.map(toProject);
  }
}

function decisionWhere(table: typeof tables.approvals | typeof tables.questions, filter: DecisionFilter): SQL | undefined {
  const filters: SQL[] = [];
  if (filter.status) filters.push(eq(table.status, filter.status));
  if (filter.conversationId) filters.push(eq(table.conversationId, filter.conversationId));
  return filters.length > 0 ? and(...filters) : undefined;
}
