import { expect } from "vitest";
import type { IndexDatabase } from "@/lib/store/database";
import type { IndexReads } from "@/lib/store/index-reads";

/*
 * Every IndexReads method called on two backends with a matrix of arguments drawn from an index's
 * own ids (issue 24): the answers must be deeply equal (the unordered ones as sorted lists), and
 * every method must have answered something somewhere, so equal empty tables cannot pass.
 */

type Matrix = { [Method in keyof IndexReads]: Array<Parameters<IndexReads[Method]>> };

/** The methods documented as answering in no particular order: compared as sorted lists. */
const UNORDERED = new Set<keyof IndexReads>(["openTurns", "conversationsWithObjective", "conversationsWithWaiting"]);

const UNKNOWN = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

/** Every id of a kind the corpus holds, read from the SQLite index, plus one that names nothing. */
function idsOf(index: IndexDatabase, sql: string): string[] {
  return [...(index.$client.prepare(sql).pluck().all() as string[]), UNKNOWN];
}

function matrix(index: IndexDatabase): Matrix {
  const conversations = idsOf(index, "SELECT id FROM conversations ORDER BY id");
  const sessions = idsOf(index, "SELECT id FROM sessions ORDER BY id");
  const turns = idsOf(index, "SELECT id FROM turns ORDER BY id");
  const items = idsOf(index, "SELECT id FROM items ORDER BY id");
  const approvals = idsOf(index, "SELECT id FROM approvals");
  const questions = idsOf(index, "SELECT id FROM questions");
  const statuses = [undefined, "pending", "approved", "denied", "answered", "cancelled"];
  const decisionFilters = [...statuses.map((status) => ({ status })), ...conversations.flatMap((conversationId) => [{ conversationId }, { conversationId, status: "pending" }])];
  const listQueries: Matrix["listConversations"] = [];
  for (const archived of ["false", "true", "all"] as const)
    for (const sort of [undefined, "updated", "created", "title", "model"] as const)
      for (const direction of [undefined, "asc", "desc"] as const)
        for (const model of [undefined, "offline", "Zed", "nobody"])
          for (const [offset, limit] of [[0, 200], [0, 3], [3, 3], [6, 4], [50, 10]] as const) listQueries.push([{ archived, sort, direction, model, offset, limit }]);
  const keys = index.$client.prepare("SELECT scope, key FROM request_keys").all() as Array<{ scope: string; key: string }>;
  const sessionsOf = index.$client.prepare("SELECT conversation_id AS conversationId, id FROM sessions ORDER BY id").all() as Array<{ conversationId: string; id: string }>;
  const carried = index.$client.prepare("SELECT conversation_id AS conversationId, attachments FROM items WHERE attachments IS NOT NULL").all() as Array<{ conversationId: string; attachments: string }>;
  const attachmentIds = carried.flatMap((row) => (JSON.parse(row.attachments) as Array<{ id: string }>).map((attachment) => [row.conversationId, attachment.id] as [string, string]));
  const hitPages = [{ after: 0 }, { after: 2 }, { before: 1_000_000 }, { before: 4 }];
  const searchSessionItems: Matrix["searchSessionItems"] = sessionsOf.flatMap(({ conversationId, id }) =>
    ["message", "the", "apple pie", "NUL", "nothing at all"].flatMap((text) => hitPages.flatMap((page) => [1, 100].map((limit) => [conversationId, id, text, page, limit] as Parameters<IndexReads["searchSessionItems"]>))),
  );
  return {
    conversationRow: conversations.map((id) => [id]),
    conversation: conversations.map((id) => [id]),
    listConversations: listQueries,
    objectiveFor: conversations.map((id) => [id]),
    listItems: sessions.flatMap((id) => [[id, 0, 500], [id, 0, 1], [id, 0, 3], [id, 3, 2], [id, 2, 500], [id, 10_000, 5]] as Array<[string, number, number]>),
    listItemsBefore: sessions.flatMap((id) => [[id, 1_000_000, 500], [id, 1_000_000, 1], [id, 4, 2], [id, 2, 500], [id, 1, 5]] as Array<[string, number, number]>),
    getItem: items.map((id) => [id]),
    itemConversation: items.map((id) => [id]),
    attachment: [...attachmentIds, ...attachmentIds.flatMap(([, attachmentId]) => conversations.map((conversationId) => [conversationId, attachmentId] as [string, string])), ...conversations.map((id) => [id, items[0] ?? id] as [string, string])],
    searchSessionItems,
    listTurns: conversations.flatMap((id) => [[id], [id, undefined], ...sessions.map((sessionId) => [id, sessionId] as [string, string])]),
    listTurnSubset: conversations.flatMap((id) =>
      sessions.flatMap((sessionId) => [0, 1, 3].flatMap((recent) => [[id, { sessionId, ids: [], recent }], [id, { sessionId, ids: turns.slice(0, 4), recent }]] as Array<Parameters<IndexReads["listTurnSubset"]>>)),
    ),
    getTurn: turns.map((id) => [id]),
    openTurns: [[]],
    listWaiting: conversations.map((id) => [id]),
    listSessions: conversations.map((id) => [id]),
    listApprovals: decisionFilters.map((filter) => [filter]),
    getApproval: approvals.map((id) => [id]),
    listQuestions: decisionFilters.map((filter) => [filter]),
    getQuestion: questions.map((id) => [id]),
    lookupRequestKey: [...keys.map(({ scope, key }) => [scope, key] as [string, string]), ["", "never-used"], [conversations[0]!, "create-apple"]],
    latestCompaction: sessions.map((id) => [id]),
    lastCompactionOf: sessions.map((id) => [id]),
    conversationTokenTotals: conversations.map((id) => [id]),
    conversationsWithObjective: ["open", "paused", "waiting_event", "completed", "cancelled", "nothing"].map((status) => [status]),
    conversationsWithWaiting: [[]],
    restartsOf: conversations.map((id) => [id]),
    recentProjects: [[], [{}], [{ machine: "local" }], [{ machine: "elsewhere" }], [{ agent: "default" }], [{ agent: "nobody" }], [{ limit: 1 }], [{ limit: 2 }], [{ machine: "local", agent: "default", limit: 3 }]],
  };
}

/** Whether an answer holds something: a row, a non-empty list or page, a non-zero total. */
function nonEmpty(answer: unknown): boolean {
  if (answer === null || answer === undefined) return false;
  if (Array.isArray(answer)) return answer.length > 0;
  if (typeof answer !== "object") return true;
  const shape = answer as Record<string, unknown>;
  if (Array.isArray(shape.items)) return shape.items.length > 0;
  if (Array.isArray(shape.conversations)) return shape.conversations.length > 0;
  if (Array.isArray(shape.seqs)) return shape.seqs.length > 0;
  if (typeof shape.input === "number") return shape.input > 0 || (shape.output as number) > 0;
  return true;
}

const sorted = (answer: unknown) => [...(answer as unknown[])].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** Asserts that `actual` answers every read as `expected` does, for ids drawn from `index` (expected's index). */
export async function expectSameReads(index: IndexDatabase, expected: IndexReads, actual: IndexReads): Promise<void> {
  const calls = matrix(index);
  const answered = new Set<string>();
  let compared = 0;
  for (const [method, argumentLists] of Object.entries(calls) as Array<[keyof IndexReads, unknown[][]]>) {
    for (const args of argumentLists) {
      const call = (reads: IndexReads) => (reads[method] as (...values: unknown[]) => Promise<unknown>).apply(reads, args);
      const [expectedAnswer, actualAnswer] = await Promise.all([call(expected), call(actual)]);
      const label = `${method}(${JSON.stringify(args)})`;
      if (UNORDERED.has(method)) expect(sorted(actualAnswer), label).toStrictEqual(sorted(expectedAnswer));
      else expect(actualAnswer, label).toStrictEqual(expectedAnswer);
      if (nonEmpty(expectedAnswer)) answered.add(method);
      compared += 1;
    }
  }
  expect(Object.keys(calls).filter((method) => !answered.has(method))).toEqual([]);
  expect(compared).toBeGreaterThan(1000);
}
