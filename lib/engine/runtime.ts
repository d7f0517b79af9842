import type { ProjectPlace } from "../ports/machine-port";
import type { OwnerContext } from "./engine-owner";
import { AgentCatalog } from "../agents/agent-catalog";
import { machineRegistryFor } from "../machines/registry-for-store";
import type { AtriumConfig } from "../config/config";
import { AtriumError } from "../errors";
import type { ArtifactPage } from "../context/artifacts";
import type { Agent, Approval, Attachment, ContextInfo, Conversation, Objective, Question, Session, TimelineEntry, Turn, Waiting } from "../events/entities";
import type { ConversationEvent, Delivered, ListEvent } from "../events/events";
import { createModelRegistry, type ModelRegistry } from "../models/registry";
import { catchUpIndex } from "../store/ingest";
import type * as queries from "../store/queries";
import type { Store } from "../store/store";
import { ConversationStaging } from "../store/conversation-staging";
import { sendWithUploads, type CreateConversationInput } from "./conversation-creation";
import { assertUsable, type ConversationPatch } from "./conversation-patch";
import { subscribeToConversation } from "./live-subscription";
import { OwnerCache } from "./owner-cache";
import { ReadModel } from "./read-model";
import { ConversationPages } from "./conversation-pages";
import { ConversationLifecycle } from "./conversation-lifecycle";
import { stopOwner } from "./owner-lifecycle";
import { replayMessage } from "./conversation-reads";
import type { AttachmentContent } from "../store/conversation-files";
import type { TurnChanges } from "../checkpoints/checkpoints";
import { RequestExtensions } from "../context/request-extensions";
import { EventBus } from "../events/bus";
import { compactNow, type CompactionOutcome } from "../context/compaction-step";
import { ConversationActor, type MessageOutcome } from "./conversation-actor";
import { answerQuestionRequest, decideApprovalRequest } from "./decision-reads";
import { recoverOpenTurns } from "./recovery";
import type { ItemsPage, ItemsQuery } from "./item-pages";
import type { FindPage, FindQuery } from "./item-find";
import type { TurnSubset } from "../store/turn-subset";
import type { RewindOptions, RewindOutcome } from "./rewind";
import { RequestKeys } from "./request-keys";
import { changeObjectiveRequest, openObjectiveRequest } from "./objective-requests";
import { buildEngineContext } from "./runtime-context";
import { TimelineNotes } from "./timeline-notes";
import { deliverGithubEvent, type GithubEvent, type WebhookDelivery } from "./webhooks";
import type { MachineRegistry } from "../machines/machine-registry";
import type { MachineBook } from "../machines/machine-records";
import type { OwnerPlacement, Placement } from "../store/postgres/owner-placement";
import { ClusterOwners } from "./cluster-owners";

export interface RuntimeOptions {
  store: Store;
  config: AtriumConfig;
  models?: ModelRegistry;
  log?: (message: string) => void;
  /** Where MCP servers' secrets (envFrom, headersEnv) are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Idle conversation owners kept in memory (default MAX_LOADED_OWNERS). */
  maxLoadedOwners?: number;
  /** DESIGN §10c: a node of a cluster places each conversation's owner on the node holding its lease. */
  placement?: OwnerPlacement;
  /** A cluster node's machines, kept in the database (DESIGN §10c). */
  machineRecords?: MachineBook;
}

export type { CreateConversationInput } from "./conversation-creation";
export type { ConversationPatch } from "./conversation-patch";

/**
 * The one Runtime of a server process, and its composition root: it builds the store's context,
 * the owners (OwnerCache → ConversationActor, the only writers of their conversations), the read
 * model and the lifecycle, and is the one face route handlers, server actions and the CLI call.
 * Its methods delegate; none holds a conversation's logic.
 */
export class Runtime {
  readonly bus = new EventBus();
  readonly store: Store;
  readonly config: AtriumConfig;
  readonly models: ModelRegistry;
  readonly context: OwnerContext;
  readonly keys: RequestKeys;
  readonly extensions: RequestExtensions;
  private readonly owners: OwnerCache;
  /** Lists, pages and the live parts of one conversation: what the API reads. */
  readonly reads: ReadModel;
  /** One conversation's pages wherever its owner runs: what the API and the workspace pages read of it. */
  readonly pages: ConversationPages;
  /** Create, change, fork, rewind, delete. */
  private readonly lifecycle: ConversationLifecycle;
  private readonly agents: AgentCatalog;
  private readonly timelineNotes = new TimelineNotes();
  private stopping = false;
  private uploadSweep: NodeJS.Timeout | null = null;
  /** Set on a node of a cluster (DESIGN §10c): which conversations' owners run here. */
  readonly cluster: ClusterOwners | null = null;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.config = options.config;
    this.models = options.models ?? createModelRegistry(options.config);
    const placement = options.placement;
    this.keys = new RequestKeys(this.store, placement && ((scope, key, hash) => (scope === "" ? placement.createdWithKey(key, hash) : Promise.resolve(null))));
    this.owners = new OwnerCache(
      (conversationId) => ConversationActor.load(this.context, conversationId),
      options.maxLoadedOwners,
      (conversationId) => this.cluster?.evicted(conversationId),
    );
    const log = options.log ?? ((message: string) => console.log(message));
    // Where machine work happens (DESIGN §10b): projects on linked machines are read there.
    const machines = machineRegistryFor(this.store, this.bus, this.config, log, options.machineRecords);
    this.agents = new AgentCatalog(this.store.paths.agents, log, machines);
    this.reloadAgents(log);
    // Issue 14 hook: skills and MCP servers.
    const extensions = new RequestExtensions({
      home: this.store.paths.home,
      config: this.config,
      env: options.env ?? process.env,
      log,
      allowedSkills: (agent, place) => (agent ? (this.agents.get(agent, place)?.skills ?? null) : null),
      machines,
    });
    this.extensions = extensions;
    this.context = buildEngineContext({
      store: this.store,
      bus: this.bus,
      config: this.config,
      models: this.models,
      agents: this.agents,
      extensions,
      log,
      notes: this.timelineNotes,
      machines,
    });
    this.reads = new ReadModel(
      this.context,
      (conversationId) => this.actor(conversationId),
      this.agents,
      this.timelineNotes,
      (conversationId) => !this.cluster || this.cluster.placement.isHere(conversationId),
      (conversationId) => (this.cluster ? this.cluster.placement.knownHolder(conversationId) : null),
      placement?.reads,
    );
    this.pages = new ConversationPages(this.reads, placement?.reads ?? null, (conversationId) => !this.cluster || this.cluster.placement.isHere(conversationId));
    this.lifecycle = new ConversationLifecycle(this.context, this.owners, this.keys, this.reads, this.pages);
    if (options.placement) this.cluster = new ClusterOwners(options.placement, this.context, this.owners, this.reads);
  }

  /** Catches the index up with the files and settles turns left open by a crash; before listening. */
  async start(): Promise<void> {
    ConversationStaging.removeLeftovers(this.store);
    this.store.removeRetiredDirectories();
    // A node of a cluster: its index is the database's replica, and other nodes' turns are theirs to recover.
    const outcomes = this.cluster ? [] : catchUpIndex(this.store);
    for (const outcome of outcomes) {
      if (outcome.status === "skipped") this.context.log(`skipped conversation ${outcome.conversationId}: ${outcome.reason}`);
      else if (outcome.status === "indexed") this.context.log(`re-indexed conversation ${outcome.conversationId}`);
    }
    // Issue 14 hook: MCP servers first, so a turn that recovery resumes finds their tools.
    await this.extensions.start();
    if (!this.cluster) await recoverOpenTurns(this.context, (conversationId) => this.actor(conversationId));
    this.startUploadSweep();
  }

  private startUploadSweep(): void {
    const sweep = () => this.store.files.removeStaleUploads(this.store.now()).catch((error: unknown) => this.context.log(`the sweep of unused uploads failed: ${String(error)}`));
    void sweep();
    this.uploadSweep = setInterval(sweep, 60 * 60 * 1000);
    this.uploadSweep.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.uploadSweep) clearInterval(this.uploadSweep);
    const finishing = [...this.owners.values()].flatMap((actor) => stopOwner(actor));
    await Promise.race([Promise.all(finishing), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await Promise.race([this.context.checkpoints?.settle(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await this.extensions.stop();
    await this.store.close();
  }

  get machines(): MachineRegistry {
    return this.context.machines!;
  }

  reloadAgents(log: (message: string) => void = this.context?.log ?? console.log): void {
    this.agents.reload(log);
  }

  actor(conversationId: string): ConversationActor {
    return this.cluster ? this.cluster.actor(conversationId) : this.owners.get(conversationId);
  }

  /** Where the conversation's owner runs; always here on a single node. */
  locate(conversationId: string, options?: { follow?: boolean; fresh?: boolean }): Promise<Placement> {
    return this.cluster ? this.cluster.locate(conversationId, options) : Promise.resolve({ kind: "here", taken: false });
  }

  get loadedOwners(): number {
    return this.owners.size;
  }

  getConversation(conversationId: string): Conversation {
    return this.reads.getConversation(conversationId);
  }

  listConversations(query: queries.ListConversationsQuery): Promise<{ conversations: Conversation[]; total: number }> {
    return this.reads.listConversations(query);
  }

  /** A cluster node's list: each conversation names the node holding its lease now (DESIGN §10c). */
  async withHolders(conversations: Conversation[]): Promise<Conversation[]> {
    if (!this.cluster) return conversations;
    const holders = await this.cluster.placement.holders(conversations.map((conversation) => conversation.id));
    return conversations.map((conversation) => ({ ...conversation, node: holders.get(conversation.id) ?? null }));
  }

  createConversation(input: CreateConversationInput): Promise<{ conversation: Conversation; message: { id: string }; turn: Turn }> {
    return this.lifecycle.create(input);
  }

  updateConversation(conversationId: string, patch: ConversationPatch): Promise<Conversation> {
    return this.lifecycle.update(conversationId, patch);
  }

  async deleteConversation(conversationId: string): Promise<void> {
    await this.lifecycle.delete(conversationId);
    // A node of a cluster lets go of a deleted conversation's lease.
    this.cluster?.deleted(conversationId);
  }

  fork(conversationId: string, options: { throughItemId?: string; beforeItemId?: string; requestKey?: string }): Promise<Conversation> {
    return this.lifecycle.fork(conversationId, options);
  }

  rewind(conversationId: string, itemId: string, options: RewindOptions = {}): Promise<RewindOutcome> {
    return this.lifecycle.rewind(conversationId, itemId, options);
  }

  filesChangedSince(conversationId: string, itemId: string): Promise<string[]> {
    return this.reads.filesChangedSince(conversationId, itemId);
  }

  turnChanges(turnId: string, itemId?: string, context?: number): Promise<TurnChanges> {
    return this.reads.turnChanges(turnId, itemId, context);
  }

  /** POST /api/turns/:id/revert: one file the turn changed, put back to how it was before the turn. */
  revertFile(turnId: string, filePath: string, force: boolean): Promise<{ restored: string[] }> {
    return this.lifecycle.revertFile(this.reads.getTurn(turnId), filePath, force);
  }

  async sendMessage(
    conversationId: string,
    input: { text: string; mode: "auto" | "steer" | "queue" | "jump"; session?: string; requestKey?: string; attachments?: string[] },
  ): Promise<MessageOutcome> {
    const actor = this.actor(conversationId);
    const sessionId = input.session ?? actor.rootSessionId;
    actor.session(sessionId);
    // Held as the owner's work while the request runs (uploads are read first): it is not evicted meanwhile.
    return actor.track(this.keys.run(
      conversationId,
      input.requestKey,
      { text: input.text, mode: input.mode, session: sessionId, attachments: input.attachments },
      async (keyed) => {
        this.assertUsable(actor);
        actor.ensureAlive();
        return sendWithUploads(this.store, actor, { text: input.text, mode: input.mode, sessionId, origin: "owner", ...keyed }, input.attachments);
      },
      (reference) => replayMessage(this.store, actor, reference, input.mode),
    ));
  }

  listWaiting(conversationId: string): Waiting[] {
    return this.reads.listWaiting(conversationId);
  }

  updateWaiting(conversationId: string, messageId: string, patch: { text?: string; mode?: "steer" | "queue" | "jump" }): Promise<Waiting> {
    return this.actor(conversationId).updateWaiting(messageId, patch);
  }

  withdrawWaiting(conversationId: string, messageId: string): Promise<void> {
    return this.actor(conversationId).withdrawWaiting(messageId);
  }

  interrupt(conversationId: string, sessionId?: string): Promise<Turn | null> {
    const actor = this.actor(conversationId);
    return actor.interrupt(sessionId ?? actor.rootSessionId);
  }

  listItems(conversationId: string, options: ItemsQuery): ItemsPage {
    return this.reads.listItems(conversationId, options);
  }

  /** GET …/find: where a text occurs in the history (messages and tool output), counted per match. */
  findItems(conversationId: string, query: FindQuery): FindPage {
    return this.reads.findItems(conversationId, query);
  }

  listTurns(conversationId: string, subset?: TurnSubset): Turn[] {
    return this.reads.listTurns(conversationId, subset);
  }

  getTurn(turnId: string): Turn {
    return this.reads.getTurn(turnId);
  }

  timeline(turnId: string): TimelineEntry[] {
    return this.reads.timeline(turnId);
  }

  listSessions(conversationId: string): Session[] {
    return this.reads.listSessions(conversationId);
  }

  listApprovals(status?: string): Promise<Approval[]> {
    return this.reads.listApprovals(status);
  }

  decideApproval(approvalId: string, decision: "approve" | "deny", requestKey?: string): Promise<Approval> {
    return decideApprovalRequest(this.keys, this.store, (id) => this.actor(id), approvalId, decision, requestKey);
  }

  getQuestion(questionId: string): Question {
    return this.reads.getQuestion(questionId);
  }

  listAllQuestions(filter: { status?: string; conversation?: string }): Promise<Question[]> {
    return this.reads.listAllQuestions(filter);
  }

  listQuestions(conversationId: string, status?: string): Promise<Question[]> {
    return this.reads.listQuestions(conversationId, status);
  }

  answerQuestion(questionId: string, answer: string, requestKey?: string): Promise<Question> {
    return answerQuestionRequest(this.keys, this.store, (id) => this.actor(id), questionId, answer, requestKey);
  }

  listAgents(place?: ProjectPlace): Agent[] {
    return this.reads.listAgents(place);
  }

  /** The home agents with the file each comes from (null: the built-in default), for Settings → Agents. */
  agentSources(): Array<Agent & { source: string | null }> {
    return this.agents.list().map((agent) => ({ name: agent.name, description: agent.description, model: agent.model, tools: agent.tools, source: agent.source }));
  }

  /** POST /api/attachments: held until a message names it, on this node's disk or in the cluster's database. */
  upload(name: string, mediaType: string, data: Buffer): Promise<Attachment> {
    return this.store.files.saveUpload(this.store.newId(), name, mediaType, data, this.store.now());
  }

  attachmentContent(conversationId: string, attachmentId: string): Promise<{ attachment: Attachment; content: AttachmentContent }> {
    return this.reads.attachmentContent(conversationId, attachmentId);
  }

  openObjective(conversationId: string, text: string, requestKey?: string): Promise<Objective> {
    const actor = this.actor(conversationId);
    return openObjectiveRequest(this.keys, actor, text, requestKey, () => this.assertUsable(actor));
  }

  changeObjective(
    conversationId: string,
    status: "open" | "completed" | "blocked" | "cancelled" | "paused",
    note?: string,
    requestKey?: string,
  ): Promise<Objective> {
    return changeObjectiveRequest(this.keys, this.actor(conversationId), { status, note }, requestKey);
  }

  /** A verified GitHub webhook: wakes every objective whose listener matches (on a cluster node, as `delivery` says). */
  deliverGithubEvent(event: GithubEvent, delivery: WebhookDelivery = {}): Promise<number> {
    const cluster = this.cluster && { ...delivery, reads: this.cluster.placement.reads, locate: (id: string) => this.locate(id, { follow: false }), log: this.context.log };
    return deliverGithubEvent(this.store, (conversationId) => this.actor(conversationId), event, cluster);
  }

  getContext(conversationId: string): ContextInfo {
    return this.reads.getContext(conversationId);
  }

  compact(conversationId: string): Promise<CompactionOutcome> {
    return compactNow(this.actor(conversationId));
  }

  readArtifact(conversationId: string, artifactId: string, page: number): Promise<ArtifactPage> {
    return this.reads.readArtifact(conversationId, artifactId, page);
  }

  /** `onEnd`: this process stopped carrying the conversation's events (a cluster node lost its lease). */
  subscribe(conversationId: string, options: { lastEventId?: number; session?: string }, send: (delivered: Delivered<ConversationEvent>) => void, onEnd?: () => void): () => void {
    return subscribeToConversation(this.bus, this.actor(conversationId), options, send, onEnd);
  }

  subscribeList(send: (delivered: Delivered<ListEvent>) => void): () => void {
    return this.bus.subscribeList(send);
  }

  private assertUsable(actor: ConversationActor): void {
    if (this.stopping) throw new AtriumError("not_idle", "the server is stopping");
    assertUsable(this.reads.decorate(actor.conversation()));
  }
}

