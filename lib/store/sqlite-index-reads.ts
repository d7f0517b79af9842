import type { IndexDatabase } from "./database";
import { SEARCH_CANDIDATE_LIMIT } from "./conversation-search";
import type { ConversationListQuery, IndexReads, IndexReadsOptions } from "./index-reads";
import { itemAttachment } from "./item-attachments";
import { searchSessionItems } from "./item-search";
import { restartsOf } from "./lineage";
import * as lookups from "./lookups";
import { recentProjects } from "./projects";
import * as queries from "./queries";
import { listTurnSubset, type TurnSubset } from "./turn-subset";

/** The index reads of a node's SQLite index: the synchronous reads of lib/store, answered as promises. */
export class SqliteIndexReads implements IndexReads {
  private readonly searchCandidateLimit: number;

  constructor(
    private readonly db: IndexDatabase,
    options: IndexReadsOptions = {},
  ) {
    this.searchCandidateLimit = options.searchCandidateLimit ?? SEARCH_CANDIDATE_LIMIT;
  }

  async conversationRow(conversationId: string) {
    return queries.conversationRow(this.db, conversationId);
  }

  async conversation(conversationId: string) {
    const row = queries.conversationRow(this.db, conversationId);
    return row ? queries.toConversation(row, queries.objectiveFor(this.db, conversationId)) : null;
  }

  async listConversations(query: ConversationListQuery) {
    const { rows, total } = queries.listConversationRows(this.db, query, this.searchCandidateLimit);
    return { conversations: rows.map((row) => queries.toConversation(row, queries.objectiveFor(this.db, row.id))), total };
  }

  async objectiveFor(conversationId: string) {
    return queries.objectiveFor(this.db, conversationId);
  }

  async listItems(sessionId: string, after: number, limit: number) {
    return queries.listItems(this.db, sessionId, after, limit);
  }

  async listItemsBefore(sessionId: string, before: number, limit: number) {
    return queries.listItemsBefore(this.db, sessionId, before, limit);
  }

  async getItem(itemId: string) {
    return queries.getItem(this.db, itemId);
  }

  async searchSessionItems(conversationId: string, sessionId: string, text: string, page: { after: number } | { before: number }, limit: number) {
    return searchSessionItems(this.db, conversationId, sessionId, text, page, limit);
  }

  async attachment(conversationId: string, attachmentId: string) {
    return itemAttachment(this.db, conversationId, attachmentId);
  }

  async itemConversation(itemId: string) {
    return queries.itemConversation(this.db, itemId);
  }

  async listTurns(conversationId: string, sessionId?: string) {
    return queries.listTurns(this.db, conversationId, sessionId);
  }

  async listTurnSubset(conversationId: string, subset: TurnSubset) {
    return listTurnSubset(this.db, conversationId, subset);
  }

  async getTurn(turnId: string) {
    return queries.getTurn(this.db, turnId);
  }

  async openTurns() {
    return queries.openTurns(this.db);
  }

  async listWaiting(conversationId: string) {
    return queries.listWaiting(this.db, conversationId);
  }

  async listSessions(conversationId: string) {
    return queries.listSessions(this.db, conversationId);
  }

  async listApprovals(filter: queries.DecisionFilter) {
    return queries.listApprovals(this.db, filter);
  }

  async getApproval(approvalId: string) {
    return queries.getApproval(this.db, approvalId);
  }

  async listQuestions(filter: queries.DecisionFilter) {
    return queries.listQuestions(this.db, filter);
  }

  async getQuestion(questionId: string) {
    return queries.getQuestion(this.db, questionId);
  }

  async lookupRequestKey(scope: string, key: string) {
    return lookups.lookupRequestKey(this.db, scope, key);
  }

  async latestCompaction(sessionId: string) {
    return lookups.latestCompaction(this.db, sessionId);
  }

  async lastCompactionOf(sessionId: string) {
    return lookups.lastCompactionOf(this.db, sessionId);
  }

  async conversationTokenTotals(conversationId: string) {
    return lookups.conversationTokenTotals(this.db, conversationId);
  }

  async conversationsWithObjective(status: string) {
    return lookups.conversationsWithObjective(this.db, status);
  }

  async conversationsWithWaiting() {
    return lookups.conversationsWithWaiting(this.db);
  }

  async restartsOf(conversationId: string) {
    return restartsOf(this.db, conversationId);
  }

  async recentProjects(filter: { machine?: string; agent?: string; limit?: number } = {}) {
    return recentProjects(this.db, filter);
  }
}
