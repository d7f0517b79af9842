import { and, asc, count, desc, eq, gt, inArray, lt, sql, type SQL } from "drizzle-orm";
import type {
  Approval,
  Conversation,
  Item,
  Objective,
  Question,
  Session,
  Turn,
  Waiting,
} from "./entities";
import type { IndexDatabase } from "./database";
import { cachedTotal, SEARCH_CANDIDATE_LIMIT, searchCandidates, toMatchExpression } from "./conversation-search";
import { prepared } from "./prepared-query";
import * as tables from "./schema";

export { conversationTokenTotals, lastCompactionOf, latestCompaction, lookupRequestKey } from "./lookups";

/** Reads of the index, mapped to the API's entity shapes. */

const id = sql.placeholder("id");

export type ConversationRow = typeof tables.conversations.$inferSelect;
export type ConversationSort = "updated" | "created" | "title" | "model";

export function toConversation(row: ConversationRow, objective: Objective | null): Omit<Conversation, "missing"> {
  return {
    id: row.id,
    title: row.title,
    titleSource: row.titleSource as Conversation["titleSource"],
    status: row.status as Conversation["status"],
    archived: row.archived,
    protected: row.protected,
    agent: row.agent,
    model: row.model,
    effort: row.effort as Conversation["effort"],
    cwd: row.cwd,
    machine: row.executor,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    forkedFrom: row.forkedFromConversationId
      ? { conversationId: row.forkedFromConversationId, itemId: row.forkedFromItemId }
      : null,
    restartOf: row.restartOfItemId,
    objective,
    rootSessionId: row.rootSessionId,
  };
}

export function conversationRow(db: IndexDatabase, conversationId: string): ConversationRow | undefined {
  return prepared(db, "conversationRow", () =>
    db.select().from(tables.conversations).where(eq(tables.conversations.id, id)).prepare(),
  ).get({ id: conversationId });
}

export interface ListConversationsQuery {
  archived: "false" | "true" | "all";
  q?: string;
  offset: number;
  limit: number;
  sort?: ConversationSort;
  direction?: "asc" | "desc";
  model?: string;
}

export function listConversationRows(
  db: IndexDatabase,
  query: ListConversationsQuery,
  searchCandidateLimit = SEARCH_CANDIDATE_LIMIT,
): { rows: ConversationRow[]; total: number } {
  const c = tables.conversations;
  const match = query.q ? toMatchExpression(query.q) : null;
  if (query.q && !match) return { rows: [], total: 0 };
  const candidates = match ? searchCandidates(db, match, { archived: query.archived, model: query.model }, searchCandidateLimit) : null;
  if (candidates?.length === 0) return { rows: [], total: 0 };
  // A search reads its few candidates by id and sorts them: the unary + keeps SQLite from
  // walking a recency index over every conversation to test each against the candidates.
  const filters: SQL[] = [];
  if (query.archived !== "all") {
    const archived = query.archived === "true";
    filters.push(candidates ? sql`+${c.archived} = ${archived ? 1 : 0}` : eq(c.archived, archived));
  }
  if (query.model) filters.push(eq(c.model, query.model));
  if (candidates) filters.push(sql`${c.id} IN (SELECT value FROM json_each(${JSON.stringify(candidates)}))`);
  const where = filters.length > 0 ? and(...filters) : undefined;
  const sorted = { updated: c.updatedAt, created: c.createdAt, title: c.title, model: c.model }[query.sort ?? "updated"];
  const column = candidates ? sql`+${sorted}` : sorted;
  const order = query.direction === "asc" ? asc(column) : desc(column);
  const rows = db
    .select()
    .from(c)
    .where(where)
    .orderBy(order, query.direction === "asc" ? asc(c.id) : desc(c.id))
    .limit(query.limit)
    .offset(query.offset)
    .all();
  const countRows = () => db.select({ total: count() }).from(c).where(where).get()?.total ?? 0;
  // A search's candidates are bounded, so counting them is cheap; a plain list's count is cached.
  const total = candidates ? countRows() : cachedTotal(db, `${query.archived}:${query.model ?? ""}`, countRows);
  return { rows, total };
}

export function objectiveFor(db: IndexDatabase, conversationId: string): Objective | null {
  const row = prepared(db, "objectiveFor", () =>
    db
      .select()
      .from(tables.objectives)
      .where(eq(tables.objectives.conversationId, id))
      .orderBy(desc(tables.objectives.createdAt), desc(tables.objectives.id))
      .prepare(),
  ).get({ id: conversationId });
  return row ? toObjective(row) : null;
}

export function toObjective(row: typeof tables.objectives.$inferSelect): Objective {
  return {
    id: row.id,
    text: row.text,
    status: row.status as Objective["status"],
    slices: row.slices,
    sliceLimit: row.sliceLimit,
    reason: row.reason,
  };
}

type ItemRow = typeof tables.items.$inferSelect;

export function toItem(row: ItemRow): Item {
  const item: Item = {
    id: row.id,
    seq: row.seq,
    sessionId: row.sessionId,
    turnId: row.turnId,
    kind: row.kind as Item["kind"],
    status: row.status as Item["status"],
    createdAt: row.createdAt,
  };
  if (row.text !== null) item.text = row.text;
  if (row.toolName !== null) item.toolName = row.toolName;
  if (row.toolCallId !== null) item.toolCallId = row.toolCallId;
  if (row.input !== null) item.input = JSON.parse(row.input);
  if (row.output !== null) item.output = row.output;
  if (row.exitCode !== null) item.exitCode = row.exitCode;
  if (row.sandbox !== null) item.sandbox = row.sandbox as Item["sandbox"];
  if (row.allowedBy !== null) item.allowedBy = JSON.parse(row.allowedBy);
  if (row.artifactId !== null) item.artifactId = row.artifactId;
  if (row.origin !== null) item.origin = row.origin;
  if (row.fromSessionId !== null) item.fromSessionId = row.fromSessionId;
  if (row.attachments !== null) item.attachments = JSON.parse(row.attachments);
  if (row.providerMetadata !== null) item.providerMetadata = JSON.parse(row.providerMetadata);
  return item;
}

export function listItems(
  db: IndexDatabase,
  sessionId: string,
  after: number,
  limit: number,
): { items: Item[]; nextCursor: number | null } {
  const rows = prepared(db, "listItems", () =>
    db
      .select()
      .from(tables.items)
      .where(and(eq(tables.items.sessionId, id), gt(tables.items.seq, sql.placeholder("after"))))
      .orderBy(asc(tables.items.seq))
      .limit(sql.placeholder("limit"))
      .prepare(),
  ).all({ id: sessionId, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    items: page.map(toItem),
    nextCursor: rows.length > limit ? page[page.length - 1].seq : null,
  };
}

/** The items of a session just before a seq, in seq order; nextCursor is the first seq given when more precede it (pass as before). */
export function listItemsBefore(db: IndexDatabase, sessionId: string, before: number, limit: number): { items: Item[]; nextCursor: number | null } {
  const rows = prepared(db, "listItemsBefore", () =>
    db
      .select()
      .from(tables.items)
      .where(and(eq(tables.items.sessionId, id), lt(tables.items.seq, sql.placeholder("before"))))
      .orderBy(desc(tables.items.seq))
      .limit(sql.placeholder("limit"))
      .prepare(),
  ).all({ id: sessionId, before, limit: limit + 1 });
  const page = rows.slice(0, limit).reverse().map(toItem);
  return { items: page, nextCursor: rows.length > limit ? page[0].seq : null };
}

export function getItem(db: IndexDatabase, itemId: string): Item | null {
  const row = prepared(db, "getItem", () => db.select().from(tables.items).where(eq(tables.items.id, id)).prepare()).get({ id: itemId });
  return row ? toItem(row) : null;
}

export function itemConversation(db: IndexDatabase, itemId: string): string | null {
  const row = db
    .select({ conversationId: tables.items.conversationId })
    .from(tables.items)
    .where(eq(tables.items.id, itemId))
    .get();
  return row?.conversationId ?? null;
}

type TurnRow = typeof tables.turns.$inferSelect;

export function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    conversationId: row.conversationId,
    sessionId: row.sessionId,
    status: row.status as Turn["status"],
    model: row.model,
    effort: row.effort as Turn["effort"],
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens },
    inputMessageIds: JSON.parse(row.inputMessageIds),
  };
}

export function listTurns(db: IndexDatabase, conversationId: string, sessionId?: string): Turn[] {
  const query = prepared(db, `listTurns:${Boolean(sessionId)}`, () => {
    const filters = [eq(tables.turns.conversationId, sql.placeholder("conversationId"))];
    if (sessionId) filters.push(eq(tables.turns.sessionId, sql.placeholder("sessionId")));
    return db
      .select()
      .from(tables.turns)
      .where(and(...filters))
      .orderBy(asc(tables.turns.startedAt), asc(tables.turns.id))
      .prepare();
  });
  return query.all({ conversationId, sessionId }).map(toTurn);
}

export function getTurn(db: IndexDatabase, turnId: string): Turn | null {
  const row = prepared(db, "getTurn", () => db.select().from(tables.turns).where(eq(tables.turns.id, id)).prepare()).get({ id: turnId });
  return row ? toTurn(row) : null;
}

export function openTurns(db: IndexDatabase): Turn[] {
  return db
    .select()
    .from(tables.turns)
    .where(inArray(tables.turns.status, ["running", "waiting_approval", "waiting_user"]))
    .all()
    .map(toTurn);
}

/** A waiting message as the index keeps it: who sent it and what it carries, beside the API's Waiting. */
export type IndexedWaiting = Waiting & { fromSessionId?: string; attachments?: Array<{ id: string; name: string; mediaType: string; bytes: number }> };

export function toWaiting(row: typeof tables.waiting.$inferSelect): IndexedWaiting {
  return {
    id: row.id,
    text: row.text,
    mode: row.mode as Waiting["mode"],
    createdAt: row.createdAt,
    sessionId: row.sessionId,
    origin: row.origin,
    ...(row.fromSessionId ? { fromSessionId: row.fromSessionId } : {}),
    ...(row.attachments ? { attachments: JSON.parse(row.attachments) } : {}),
  };
}

export function listWaiting(db: IndexDatabase, conversationId: string): IndexedWaiting[] {
  return prepared(db, "listWaiting", () =>
    db.select().from(tables.waiting).where(eq(tables.waiting.conversationId, id)).orderBy(asc(tables.waiting.position)).prepare(),
  )
    .all({ id: conversationId })
    .map(toWaiting);
}

export function toSession(row: typeof tables.sessions.$inferSelect): Session {
  return {
    id: row.id,
    conversationId: row.conversationId,
    parentSessionId: row.parentSessionId,
    agent: row.agent,
    model: row.model,
    status: row.status as Session["status"],
    depth: row.depth,
    createdAt: row.createdAt,
  };
}

export function listSessions(db: IndexDatabase, conversationId: string): Session[] {
  return prepared(db, "listSessions", () =>
    db
      .select()
      .from(tables.sessions)
      .where(eq(tables.sessions.conversationId, id))
      .orderBy(asc(tables.sessions.createdAt), asc(tables.sessions.id))
      .prepare(),
  )
    .all({ id: conversationId })
    .map(toSession);
}

type ApprovalRow = typeof tables.approvals.$inferSelect;

export function toApproval(row: ApprovalRow): Approval {
  return {
    id: row.id,
    conversationId: row.conversationId,
    sessionId: row.sessionId,
    turnId: row.turnId,
    itemId: row.itemId,
    toolName: row.toolName,
    input: row.input === null ? null : JSON.parse(row.input),
    status: row.status as Approval["status"],
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
  };
}

/** Which approvals or questions a list wants: of one status, of one conversation, or both. */
export type DecisionFilter = { status?: string; conversationId?: string };

/** The WHERE of an approvals or questions list, and the name its prepared query is kept under (one per shape of filter). */
function decisionQuery(name: string, table: typeof tables.approvals | typeof tables.questions, filter: DecisionFilter): { key: string; where: SQL | undefined } {
  const filters: SQL[] = [];
  if (filter.status) filters.push(eq(table.status, sql.placeholder("status")));
  if (filter.conversationId) filters.push(eq(table.conversationId, sql.placeholder("conversationId")));
  return { key: `${name}:${Boolean(filter.status)}:${Boolean(filter.conversationId)}`, where: filters.length ? and(...filters) : undefined };
}

export function listApprovals(db: IndexDatabase, filter: DecisionFilter): Approval[] {
  const { approvals } = tables;
  const { key, where } = decisionQuery("listApprovals", approvals, filter);
  const query = prepared(db, key, () => db.select().from(approvals).where(where).orderBy(asc(approvals.createdAt), asc(approvals.id)).prepare());
  return query.all(filter).map(toApproval);
}

export function getApproval(db: IndexDatabase, approvalId: string): Approval | null {
  const row = prepared(db, "getApproval", () => db.select().from(tables.approvals).where(eq(tables.approvals.id, id)).prepare()).get({
    id: approvalId,
  });
  return row ? toApproval(row) : null;
}

type QuestionRow = typeof tables.questions.$inferSelect;

export function toQuestion(row: QuestionRow): Question {
  return {
    id: row.id,
    conversationId: row.conversationId,
    sessionId: row.sessionId,
    turnId: row.turnId,
    itemId: row.itemId,
    question: row.question,
    choices: JSON.parse(row.choices),
    status: row.status as Question["status"],
    answer: row.answer,
  };
}

export function getQuestion(db: IndexDatabase, questionId: string): Question | null {
  const row = prepared(db, "getQuestion", () => db.select().from(tables.questions).where(eq(tables.questions.id, id)).prepare()).get({
    id: questionId,
  });
  return row ? toQuestion(row) : null;
}

export function listQuestions(db: IndexDatabase, filter: DecisionFilter): Question[] {
  const { questions } = tables;
  const { key, where } = decisionQuery("listQuestions", questions, filter);
  const query = prepared(db, key, () => db.select().from(questions).where(where).orderBy(asc(questions.createdAt), asc(questions.id)).prepare());
  return query.all(filter).map(toQuestion);
}
