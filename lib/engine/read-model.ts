import type { ProjectPlace } from "../ports/machine-port";
import type { AgentCatalog } from "../agents/agent-catalog";
import type { TurnChanges } from "../checkpoints/checkpoints";
import type { ArtifactPage } from "../context/artifacts";
import { rootContext } from "../context/compaction-step";
import { AtriumError, notFound } from "../errors";
import type { Agent, Approval, Attachment, ContextInfo, Conversation, Question, Session, TimelineEntry, Turn, Waiting } from "../events/entities";
import type { IndexReads } from "../store/index-reads";
import type { RestartLink } from "../store/lineage";
import type { Project } from "../store/projects";
import * as queries from "../store/queries";
import type { AttachmentContent } from "../store/conversation-files";
import type { TurnSubset } from "../store/turn-subset";
import type { ConversationActor } from "./conversation-actor";
import { SqliteIndexReads } from "../store/sqlite-index-reads";
import { findAttachment, openAttachment, readArtifact, sessionsWithStatus, turnsWithLive } from "./conversation-reads";
import { findQuestion } from "./decision-reads";
import type { OwnerContext } from "./engine-owner";
import { openIndexedAttachment, readFromDatabase } from "./indexed-reads";
import { findInSession, type FindPage, type FindQuery } from "./item-find";
import { pageOfItems, type ItemsPage, type ItemsQuery } from "./item-pages";
import { missingParts } from "./missing";
import { filesChangedSinceItem } from "./rewind";
import { buildTimeline } from "./timeline";
import type { TimelineNotes } from "./timeline-notes";

/**
 * What the API reads (DESIGN §8): lists and search from the index, one conversation's pages and
 * live parts through its owner. Nothing here writes.
 */
export class ReadModel {
  constructor(
    private readonly context: OwnerContext,
    private readonly owner: (conversationId: string) => ConversationActor,
    private readonly agents: AgentCatalog,
    private readonly notes: TimelineNotes,
    /** Whether the conversation's owner runs on this node (always on a single node; DESIGN §10c). */
    private readonly ownedHere: (conversationId: string) => boolean = () => true,
    /** The node holding the conversation's lease as far as this node knows without asking (null on a single node; undefined: not known here). */
    private readonly nodeOf: (conversationId: string) => string | null | undefined = () => null,
    /** The index's reads, the same over SQLite and PostgreSQL (lib/store/index-reads.ts): a cluster's tables on a node of one. */
    private readonly index: IndexReads = new SqliteIndexReads(context.store.index),
  ) {}

  private get store() {
    return this.context.store;
  }

  /** On a node of a cluster, of a conversation this node holds (Runtime.pages reads one held elsewhere). */
  getConversation(conversationId: string): Conversation {
    return this.decorate(this.owner(conversationId).conversation());
  }

  async listConversations(query: queries.ListConversationsQuery): Promise<{ conversations: Conversation[]; total: number }> {
    const { conversations, total } = await this.index.listConversations(query);
    return { conversations: conversations.map((conversation) => this.decorate(conversation)), total };
  }

  /** The conversation as this node's index has it, without its owner (null: not there; on a cluster node, one it does not hold). */
  indexedConversation(conversationId: string): Conversation | null {
    const row = queries.conversationRow(this.store.index, conversationId);
    return row ? this.decorate(queries.toConversation(row, queries.objectiveFor(this.store.index, conversationId))) : null;
  }

  /** A conversation as the API shows it: with the parts it names that are missing here. */
  decorate(conversation: Omit<Conversation, "missing" | "node">): Conversation {
    const decorated = { ...conversation, missing: missingParts(conversation, this.context) };
    const node = this.nodeOf(conversation.id);
    // Not known here without asking (a list event from another node's records): left out rather than a wrong null.
    return node === undefined ? decorated : { ...decorated, node };
  }

  listWaiting(conversationId: string): Waiting[] {
    return this.owner(conversationId).waitingList();
  }

  listItems(conversationId: string, options: ItemsQuery): ItemsPage {
    return pageOfItems(this.store, this.owner(conversationId), options);
  }

  findItems(conversationId: string, query: FindQuery): FindPage {
    return findInSession(this.owner(conversationId), query);
  }

  listTurns(conversationId: string, subset?: TurnSubset): Turn[] {
    return turnsWithLive(this.store, this.owner(conversationId), subset);
  }

  getTurn(turnId: string): Turn {
    const turn = queries.getTurn(this.store.index, turnId);
    if (!turn) throw new AtriumError("not_found", `turn ${turnId} was not found`);
    const live = this.owner(turn.conversationId).runningTurns().find((candidate) => candidate.id === turnId);
    return live ?? turn;
  }

  timeline(turnId: string): TimelineEntry[] {
    const entries = [...buildTimeline(this.store, this.getTurn(turnId)), ...this.notes.of(turnId)];
    return entries.sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  }

  /** GET /api/turns/:id/changes; with itemId, the changes of that one tool call. */
  async turnChanges(turnId: string, itemId?: string, context?: number): Promise<TurnChanges> {
    const turn = this.getTurn(turnId);
    return this.context.checkpoints?.turnChanges(turn.conversationId, turnId, itemId, context) ?? { files: [], diff: "" };
  }

  /** The files changed since an owner's message: what a rewind with restoreFiles would put back. */
  filesChangedSince(conversationId: string, itemId: string): Promise<string[]> {
    return filesChangedSinceItem(this.owner(conversationId), itemId);
  }

  listSessions(conversationId: string): Session[] {
    return sessionsWithStatus(this.store, this.owner(conversationId));
  }

  listApprovals(status?: string): Promise<Approval[]> {
    return this.index.listApprovals({ status });
  }

  getQuestion(questionId: string): Question {
    return findQuestion(this.store, questionId);
  }

  listAllQuestions(filter: { status?: string; conversation?: string }): Promise<Question[]> {
    return this.index.listQuestions({ status: filter.status, conversationId: filter.conversation });
  }

  listQuestions(conversationId: string, status?: string): Promise<Question[]> {
    return this.index.listQuestions({ conversationId, status });
  }

  /** The restarts made from a conversation's messages, oldest first. */
  restartsOf(conversationId: string): Promise<RestartLink[]> {
    return this.index.restartsOf(conversationId);
  }

  /** Folders conversations were held in, most recently used first (GET /api/projects, the new-conversation form). */
  recentProjects(filter?: { machine?: string; agent?: string; limit?: number }): Promise<Project[]> {
    return this.index.recentProjects(filter);
  }

  /** With a place, that project's `.atrium/agents` are listed too, read on its machine. */
  listAgents(place?: ProjectPlace): Agent[] {
    return this.agents.list(place).map((agent) => ({ name: agent.name, description: agent.description, model: agent.model, tools: agent.tools }));
  }

  /** The file of an attachment some message of this conversation carries. */
  attachmentFile(conversationId: string, attachmentId: string): { path: string; attachment: Attachment } {
    return findAttachment(this.store, this.owner(conversationId), attachmentId);
  }

  /** On a cluster node that does not hold the conversation: found in the cluster's index and read from the database (DESIGN §10c). */
  attachmentContent(conversationId: string, attachmentId: string): Promise<{ attachment: Attachment; content: AttachmentContent }> {
    if (!this.ownedHere(conversationId)) return readFromDatabase(() => openIndexedAttachment(this.store, this.index, conversationId, attachmentId));
    return openAttachment(this.store, this.owner(conversationId), attachmentId);
  }

  readArtifact(conversationId: string, artifactId: string, page: number): Promise<ArtifactPage> {
    if (!this.ownedHere(conversationId)) {
      return readFromDatabase(async () => {
        if (!(await this.index.conversationRow(conversationId))) throw notFound("conversation", conversationId);
        return readArtifact(this.store, conversationId, artifactId, page);
      });
    }
    return readArtifact(this.store, this.owner(conversationId).id, artifactId, page);
  }

  getContext(conversationId: string): ContextInfo {
    const actor = this.owner(conversationId);
    return rootContext(actor, actor.conversation().model);
  }
}
