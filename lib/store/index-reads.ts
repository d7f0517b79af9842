import type { Approval, Attachment, Conversation, Item, Objective, Question, Session, Turn } from "./entities";
import type { RestartLink } from "./lineage";
import type { Project } from "./projects";
import type { ConversationRow, DecisionFilter, IndexedWaiting, ListConversationsQuery } from "./queries";
import type { ItemHits } from "./item-search";
import type { CompactionRow } from "./lookups";
import type { TurnSubset } from "./turn-subset";

/** A list of conversations, or a search of them (`q`: each word a prefix, as FTS5 matches it). */
export type ConversationListQuery = ListConversationsQuery;

/** Options of either backend's reads. */
export interface IndexReadsOptions {
  /** How many of the newest matching messages, and as many titles, a search looks at (SEARCH_CANDIDATE_LIMIT). */
  searchCandidateLimit?: number;
}

/** A conversation as the index has it: no `missing` (what this machine lacks) and no `node`. */
export type IndexedConversation = Omit<Conversation, "missing">;

/**
 * The reads of the index (DESIGN §2, §10c), the same on both backends: a node's SQLite index
 * (SqliteIndexReads) or the cluster's tables in PostgreSQL (PostgresIndexReads). Each answers
 * the API's entity shapes, in the same order on both; one contract test holds them together
 * (tests/integration/cluster/index-reads-contract.test.ts). Lists documented as "in no
 * particular order" are sets.
 */
export interface IndexReads {
  conversationRow(conversationId: string): Promise<ConversationRow | undefined>;
  /** The conversation with its latest objective, or null. */
  conversation(conversationId: string): Promise<IndexedConversation | null>;
  /**
   * A page of conversations: sorted by the chosen column (default updated, descending), ties by
   * id in the same direction; `offset` is the API's cursor; `total` counts every match. With `q`,
   * only the conversations owning one of the newest SEARCH_CANDIDATE_LIMIT matching messages or
   * titles (conversation-search.ts), in the same order.
   */
  listConversations(query: ConversationListQuery): Promise<{ conversations: IndexedConversation[]; total: number }>;
  /** The newest objective of a conversation (by createdAt, then id). */
  objectiveFor(conversationId: string): Promise<Objective | null>;
  /** Items of a session after a seq, in seq order; nextCursor is the last seq given when more follow. */
  listItems(sessionId: string, after: number, limit: number): Promise<{ items: Item[]; nextCursor: number | null }>;
  /** Items of a session just before a seq, in seq order; nextCursor is the first seq given when more precede it (pass as before). */
  listItemsBefore(sessionId: string, before: number, limit: number): Promise<{ items: Item[]; nextCursor: number | null }>;
  getItem(itemId: string): Promise<Item | null>;
  /**
   * A page of the seqs of one session's messages whose text matches (each word a prefix, as the
   * list's `q`), in seq order, and how many match in all: after a seq forward, or the last page
   * before one (nextCursor then goes further back).
   */
  searchSessionItems(conversationId: string, sessionId: string, text: string, page: { after: number } | { before: number }, limit: number): Promise<ItemHits>;
  itemConversation(itemId: string): Promise<string | null>;
  /** The attachment with this id that some message of the conversation carries (null: none); the id a checked id. */
  attachment(conversationId: string, attachmentId: string): Promise<Attachment | null>;
  /** Turns of a conversation (of one session when given), oldest first (startedAt, then id). */
  listTurns(conversationId: string, sessionId?: string): Promise<Turn[]>;
  /** The turns a page of a session's history needs (see TurnSubset), oldest first. */
  listTurnSubset(conversationId: string, subset: TurnSubset): Promise<Turn[]>;
  getTurn(turnId: string): Promise<Turn | null>;
  /** Turns running or parked, of every conversation, in no particular order. */
  openTurns(): Promise<Turn[]>;
  /** A conversation's waiting messages in the order they run. */
  listWaiting(conversationId: string): Promise<IndexedWaiting[]>;
  /** A conversation's sessions, oldest first (createdAt, then id). */
  listSessions(conversationId: string): Promise<Session[]>;
  /** Approvals oldest first (createdAt, then id). */
  listApprovals(filter: DecisionFilter): Promise<Approval[]>;
  getApproval(approvalId: string): Promise<Approval | null>;
  /** Questions oldest first (createdAt, then id). */
  listQuestions(filter: DecisionFilter): Promise<Question[]>;
  getQuestion(questionId: string): Promise<Question | null>;
  /** The answer remembered under a requestKey in a scope (a conversation id, or "" for creations). */
  lookupRequestKey(scope: string, key: string): Promise<{ hash: string; reference: Record<string, unknown> } | null>;
  latestCompaction(sessionId: string): Promise<{ itemId: string; firstKeptItemId: string | null } | null>;
  lastCompactionOf(sessionId: string): Promise<CompactionRow | null>;
  conversationTokenTotals(conversationId: string): Promise<{ input: number; output: number }>;
  /** Conversations with an objective of this status, in no particular order. */
  conversationsWithObjective(status: string): Promise<string[]>;
  /** Conversations with waiting messages, in no particular order. */
  conversationsWithWaiting(): Promise<string[]>;
  /** The restarts made from a conversation's messages, oldest first (createdAt, then id). */
  restartsOf(conversationId: string): Promise<RestartLink[]>;
  /** Folders conversations were held in, most recently used first (then path, then machine). */
  recentProjects(filter?: { machine?: string; agent?: string; limit?: number }): Promise<Project[]>;
}
