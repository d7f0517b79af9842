import { AtriumError, badRequest, notFound } from "../errors";
import type { Conversation, Question, Session, Turn, Waiting } from "../events/entities";
import type { IndexedConversation, IndexReads } from "../store/index-reads";
import type { ConversationRow } from "../store/queries";
import type { TurnSubset } from "../store/turn-subset";
import type { ItemsPage, ItemsQuery } from "./item-pages";
import type { ReadModel } from "./read-model";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/**
 * One conversation's pages as the API and the workspace pages read them (DESIGN §8), wherever
 * its owner runs. On a single node, and for a conversation whose lease this node holds, they are
 * the owner's reads (ReadModel: partial text and running turns included). On a node of a cluster
 * (DESIGN §10c), a conversation another node holds is read from the cluster's index tables
 * (`cluster`: PostgresIndexReads), which its owner writes in the transaction of its records, so
 * nothing this node has heard or indexed of it matters. A streaming item shows the text of its
 * last progress record there; the live stream, which follows the holder, brings the rest.
 */
export class ConversationPages {
  constructor(
    private readonly reads: ReadModel,
    /** The cluster's index (null on a single node). */
    private readonly cluster: IndexReads | null,
    /** Whether this node holds the conversation's lease (always true on a single node). */
    private readonly ownedHere: (conversationId: string) => boolean,
  ) {}

  private heldElsewhere(conversationId: string): IndexReads | null {
    return this.cluster && !this.ownedHere(conversationId) ? this.cluster : null;
  }

  async getConversation(conversationId: string): Promise<Conversation> {
    const cluster = this.heldElsewhere(conversationId);
    if (!cluster) return this.reads.getConversation(conversationId);
    return this.reads.decorate(await found(cluster.conversation(conversationId), conversationId));
  }

  async listItems(conversationId: string, query: ItemsQuery): Promise<ItemsPage> {
    const cluster = this.heldElsewhere(conversationId);
    if (!cluster) return this.reads.listItems(conversationId, query);
    const modes = [query.after !== undefined, query.before !== undefined, query.tail !== undefined, query.around !== undefined].filter(Boolean).length;
    if (modes > 1 || (query.q !== undefined && query.around !== undefined)) {
      throw badRequest("give at most one of after, before, tail and around (q pages with after, before or tail)");
    }
    const row = await found(cluster.conversationRow(conversationId), conversationId);
    const sessionId = await this.sessionOf(cluster, row, query.session);
    const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    if (query.around !== undefined) return itemsAround(cluster, sessionId, query.around, limit);
    if (query.q !== undefined) {
      const backward = query.before !== undefined || query.tail !== undefined;
      const page = backward ? { before: query.before ?? Number.MAX_SAFE_INTEGER } : { after: query.after ?? 0 };
      const hits = await cluster.searchSessionItems(conversationId, sessionId, query.q, page, limit);
      const items = await Promise.all(hits.seqs.map(async (seq) => (await cluster.listItems(sessionId, seq - 1, 1)).items.filter((item) => item.seq === seq)));
      return { items: items.flat(), nextCursor: hits.nextCursor, total: hits.total };
    }
    if (query.before === undefined && query.tail === undefined) return cluster.listItems(sessionId, query.after ?? 0, limit);
    return cluster.listItemsBefore(sessionId, query.before ?? Number.MAX_SAFE_INTEGER, limit);
  }

  async listTurns(conversationId: string, subset?: TurnSubset): Promise<Turn[]> {
    const cluster = this.heldElsewhere(conversationId);
    if (!cluster) return this.reads.listTurns(conversationId, subset);
    await found(cluster.conversationRow(conversationId), conversationId);
    return subset ? cluster.listTurnSubset(conversationId, subset) : cluster.listTurns(conversationId);
  }

  async listWaiting(conversationId: string): Promise<Waiting[]> {
    const cluster = this.heldElsewhere(conversationId);
    if (!cluster) return this.reads.listWaiting(conversationId);
    await found(cluster.conversationRow(conversationId), conversationId);
    const waiting = await cluster.listWaiting(conversationId);
    return waiting.map(({ id, text, mode, createdAt, sessionId, origin }) => ({ id, text, mode, createdAt, sessionId, origin }));
  }

  async listSessions(conversationId: string): Promise<Session[]> {
    const cluster = this.heldElsewhere(conversationId);
    if (!cluster) return this.reads.listSessions(conversationId);
    await found(cluster.conversationRow(conversationId), conversationId);
    return cluster.listSessions(conversationId);
  }

  /** A turn of any conversation: from its owner here (a running turn's live parts), else from the cluster's index. */
  async getTurn(turnId: string): Promise<Turn> {
    if (!this.cluster) return this.reads.getTurn(turnId);
    const turn = await this.cluster.getTurn(turnId);
    if (!turn) throw new AtriumError("not_found", `turn ${turnId} was not found`);
    return this.ownedHere(turn.conversationId) ? this.reads.getTurn(turnId) : turn;
  }

  async getQuestion(questionId: string): Promise<Question> {
    if (!this.cluster) return this.reads.getQuestion(questionId);
    const question = await this.cluster.getQuestion(questionId);
    if (!question) throw new AtriumError("not_found", `question ${questionId} was not found`);
    return question;
  }

  /** The session a page names (the root when none), refused as the owner refuses one not in the conversation. */
  private async sessionOf(cluster: IndexReads, row: ConversationRow, sessionId: string | undefined): Promise<string> {
    if (sessionId === undefined || sessionId === row.rootSessionId) return row.rootSessionId;
    const sessions = await cluster.listSessions(row.id);
    if (!sessions.some((session) => session.id === sessionId)) throw new AtriumError("not_found", `session ${sessionId} was not found in conversation ${row.id}`);
    return sessionId;
  }
}

/**
 * `around` as the owner pages it (item-pages.ts): a window of `limit` items with the item at
 * `limit / 2` from its start, moved back when fewer follow it; cursors both ways.
 */
async function itemsAround(cluster: IndexReads, sessionId: string, itemId: string, limit: number): Promise<ItemsPage> {
  const item = await cluster.getItem(itemId);
  if (!item || item.sessionId !== sessionId) throw badRequest(`item ${itemId} is not in this session`);
  const following = await cluster.listItems(sessionId, item.seq - 1, limit);
  const half = Math.floor(limit / 2);
  const wantedBefore = following.items.length >= limit - half ? half : limit - following.items.length;
  // At least one is read, to know whether anything lies before the window.
  const preceding = await cluster.listItemsBefore(sessionId, item.seq, Math.max(wantedBefore, 1));
  const before = wantedBefore === 0 ? [] : preceding.items;
  const moreBefore = wantedBefore === 0 ? preceding.items.length > 0 : preceding.nextCursor !== null;
  const after = following.items.slice(0, limit - before.length);
  const moreAfter = after.length < following.items.length || following.nextCursor !== null;
  const items = [...before, ...after];
  return { items, nextCursor: moreAfter ? items[items.length - 1]!.seq : null, previousCursor: moreBefore ? items[0]!.seq : null };
}

async function found<T extends ConversationRow | IndexedConversation>(reading: Promise<T | null | undefined>, conversationId: string): Promise<T> {
  const value = await reading;
  if (!value) throw notFound("conversation", conversationId);
  return value;
}
