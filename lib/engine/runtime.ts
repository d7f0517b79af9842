import type { OwnerContext } from "./engine-owner";
import { AgentCatalog } from "../agents/agent-catalog";
import type { AtriumConfig } from "../config/config";
import { AtriumError } from "../errors";
import type { ArtifactPage } from "../context/artifacts";
import type { Agent, Approval, Attachment, ContextInfo, Conversation, Item, Objective, Question, Session, TimelineEntry, Turn, Waiting } from "../events/entities";
import type { ConversationEvent, Delivered, ListEvent } from "../events/events";
import { createModelRegistry, type ModelRegistry } from "../models/registry";
import { catchUpIndex } from "../store/ingest";
import * as queries from "../store/queries";
import type { Store } from "../store/store";
import { ConversationStaging } from "../store/conversation-staging";
import { discardNewConversation, sendWithUploads, stageNewConversation, type CreateConversationInput } from "./conversation-creation";
import { assertUsable, conversationChanges, type ConversationPatch } from "./conversation-patch";
import { subscribeToConversation } from "./live-subscription";
import { OwnerCache } from "./owner-cache";
import { stopOwner } from "./owner-lifecycle";
import { findAttachment, readArtifact, replayCreation, replayMessage, sessionsWithStatus, turnsWithLive } from "./conversation-reads";
import type { AttachmentRef } from "../store/records";
import { removeStaleUploads, saveUpload } from "../store/uploads";
import type { TurnChanges } from "../checkpoints/checkpoints";
import { RequestExtensions } from "../context/request-extensions";
import { EventBus } from "../events/bus";
import { copyCheckpointsToFork } from "../checkpoints/checkpoint-hooks";
import { compactNow, rootContext, type CompactionOutcome } from "../context/compaction-step";
import { ConversationActor, type MessageOutcome } from "./conversation-actor";
import { answerQuestionRequest, decideApprovalRequest, findQuestion } from "./decision-reads";
import { forkConversation } from "./fork";
import { recoverOpenTurns } from "./recovery";
import { pageOfItems, type ItemsPage, type ItemsQuery } from "./item-pages";
import type { TurnSubset } from "../store/turn-subset";
import { filesChangedSinceItem, rewindConversation, type RewindOptions, type RewindOutcome } from "./rewind";
import { RequestKeys } from "./request-keys";
import { missingParts } from "./missing";
import { changeObjectiveRequest, openObjectiveRequest } from "./objective-requests";
import { buildEngineContext } from "./runtime-context";
import { buildTimeline } from "./timeline";
import { TimelineNotes } from "./timeline-notes";
import { titleAfterFirstReply } from "./auto-title";
import { deliverGithubEvent, type GithubEvent } from "./webhooks";
import { checkMachinePatch } from "../machines/machine-move";
import type { MachineRegistry } from "../machines/machine-registry";

export interface RuntimeOptions {
  store: Store;
  config: AtriumConfig;
  models?: ModelRegistry;
  log?: (message: string) => void;
  /** Where MCP servers' secrets (envFrom, headersEnv) are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Idle conversation owners kept in memory (default MAX_LOADED_OWNERS). */
  maxLoadedOwners?: number;
}

export type { CreateConversationInput } from "./conversation-creation";
export type { ConversationPatch } from "./conversation-patch";

/**
 * The one Runtime of a server process: owns every conversation actor, the event bus,
 * the models and tools. Route handlers, server actions and the CLI call these methods.
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
  private readonly agents: AgentCatalog;
  private readonly timelineNotes = new TimelineNotes();
  private stopping = false;
  private uploadSweep: NodeJS.Timeout | null = null;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.config = options.config;
    this.models = options.models ?? createModelRegistry(options.config);
    this.keys = new RequestKeys(this.store);
    this.owners = new OwnerCache((conversationId) => ConversationActor.load(this.context, conversationId), options.maxLoadedOwners);
    this.store.onIndexCaughtUp((conversationId) => this.owners.reloadWhenIdle(conversationId));
    const log = options.log ?? ((message: string) => console.log(message));
    this.agents = new AgentCatalog(this.store.paths.agents, log);
    this.reloadAgents(log);
    // Issue 14 hook: skills and MCP servers.
    const extensions = new RequestExtensions({
      home: this.store.paths.home,
      config: this.config,
      env: options.env ?? process.env,
      log,
      allowedSkills: (agent, cwd) => (agent ? (this.agents.get(agent, cwd)?.skills ?? null) : null),
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
    });
  }

  /** Catches the index up with the files and settles turns left open by a crash; before listening. */
  async start(): Promise<void> {
    ConversationStaging.removeLeftovers(this.store);
    this.store.removeRetiredDirectories();
    for (const outcome of catchUpIndex(this.store)) {
      if (outcome.status === "skipped") this.context.log(`skipped conversation ${outcome.conversationId}: ${outcome.reason}`);
      else if (outcome.status === "indexed") this.context.log(`re-indexed conversation ${outcome.conversationId}`);
    }
    // Issue 14 hook: MCP servers first, so a turn that recovery resumes finds their tools.
    await this.extensions.start();
    await recoverOpenTurns(this.context, (conversationId) => this.actor(conversationId));
    removeStaleUploads(this.store.paths, this.store.now());
    this.uploadSweep = setInterval(() => removeStaleUploads(this.store.paths, this.store.now()), 60 * 60 * 1000);
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
    return this.owners.get(conversationId);
  }

  get loadedOwners(): number {
    return this.owners.size;
  }

  getConversation(conversationId: string): Conversation {
    return this.decorate(this.actor(conversationId).conversation());
  }

  listConversations(query: queries.ListConversationsQuery): { conversations: Conversation[]; total: number } {
    const { rows, total } = queries.listConversationRows(this.store.index, query);
    return {
      conversations: rows.map((row) => this.decorate(queries.toConversation(row, queries.objectiveFor(this.store.index, row.id)))),
      total,
    };
  }

  async createConversation(input: CreateConversationInput): Promise<{ conversation: Conversation; message: { id: string }; turn: Turn }> {
    const body = { ...input };
    return this.keys.run(
      "",
      input.requestKey,
      body,
      async (keyed) => {
        const { conversationId, rootSessionId, attachments } = await stageNewConversation(this.context, input, keyed);
        const actor = this.actor(conversationId);
        this.bus.publishList({ type: "conversation.created", conversationId, conversation: this.getConversation(conversationId) });
        try {
          const outcome = await actor.sendMessage({ text: input.text, mode: "auto", sessionId: rootSessionId, origin: "owner", attachments });
          if (this.config.titleModel && outcome.turn) titleAfterFirstReply(actor, outcome.turn.id, this.config.titleModel);
          return { conversation: this.getConversation(conversationId), message: { id: outcome.message.id }, turn: outcome.turn! };
        } catch (error) {
          // Its first message could not be recorded: the conversation goes, with its requestKey.
          await this.undoCreation(actor, attachments ?? []);
          throw error;
        }
      },
      (reference) => replayCreation(this.store, this.getConversation(String(reference.conversationId))),
    );
  }

  private async undoCreation(actor: ConversationActor, attachments: AttachmentRef[]): Promise<void> {
    const conversationId = actor.id;
    await actor.execute({ type: "discard_new_conversation" }).catch(() => undefined);
    await discardNewConversation(this.context, conversationId, attachments);
    this.owners.drop(actor);
    this.bus.forget(conversationId);
    this.bus.publishList({ type: "conversation.deleted", conversationId });
  }

  async updateConversation(conversationId: string, patch: ConversationPatch): Promise<Conversation> {
    const actor = this.actor(conversationId);
    const checked = await checkMachinePatch(this.context.machines, actor.conversation(), patch);
    await actor.execute({ type: "update_conversation", patch: checked });
    return this.getConversation(conversationId);
  }

  async deleteConversation(conversationId: string): Promise<void> {
    const actor = this.actor(conversationId);
    await actor.execute({ type: "delete_conversation" });
    this.owners.drop(actor);
    this.context.checkpoints?.forget(conversationId);
    this.bus.forget(conversationId);
    this.bus.publishList({ type: "conversation.deleted", conversationId });
  }

  async fork(conversationId: string, options: { throughItemId?: string; beforeItemId?: string; requestKey?: string }): Promise<Conversation> {
    const source = this.actor(conversationId);
    return this.keys.run(
      "",
      options.requestKey,
      { fork: conversationId, ...options },
      async (keyed) => {
        const forkedId = await forkConversation(this.context, source, { ...options, keyed });
        await copyCheckpointsToFork(source, forkedId, options);
        const conversation = this.getConversation(forkedId);
        this.bus.publishList({ type: "conversation.created", conversationId: forkedId, conversation });
        return conversation;
      },
      (reference) => this.getConversation(String(reference.conversationId)),
    );
  }

  async rewind(conversationId: string, itemId: string, options: RewindOptions = {}): Promise<RewindOutcome> {
    const fork = (beforeItemId: string, requestKey: string | undefined) => this.fork(conversationId, { beforeItemId, requestKey });
    return rewindConversation(this.actor(conversationId), itemId, options, fork);
  }

  /** The files changed since an owner's message: what a rewind with restoreFiles would put back. */
  async filesChangedSince(conversationId: string, itemId: string): Promise<string[]> {
    return filesChangedSinceItem(this.actor(conversationId), itemId);
  }

  /** GET /api/turns/:id/changes; with itemId, the changes of that one tool call. */
  async turnChanges(turnId: string, itemId?: string): Promise<TurnChanges> {
    const turn = this.getTurn(turnId);
    return this.context.checkpoints?.turnChanges(turn.conversationId, turnId, itemId) ?? { files: [], diff: "" };
  }

  async sendMessage(
    conversationId: string,
    input: { text: string; mode: "auto" | "steer" | "queue" | "jump"; session?: string; requestKey?: string; attachments?: string[] },
  ): Promise<MessageOutcome> {
    const actor = this.actor(conversationId);
    const sessionId = input.session ?? actor.rootSessionId;
    actor.session(sessionId);
    return this.keys.run(
      conversationId,
      input.requestKey,
      { text: input.text, mode: input.mode, session: sessionId, attachments: input.attachments },
      async (keyed) => {
        this.assertUsable(actor);
        actor.ensureAlive();
        return sendWithUploads(this.store, actor, { text: input.text, mode: input.mode, sessionId, origin: "owner", ...keyed }, input.attachments);
      },
      (reference) => replayMessage(this.store, actor, reference, input.mode),
    );
  }

  listWaiting(conversationId: string): Waiting[] {
    return this.actor(conversationId).waitingList();
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
    return pageOfItems(this.store, this.actor(conversationId), options);
  }

  listTurns(conversationId: string, subset?: TurnSubset): Turn[] {
    return turnsWithLive(this.store, this.actor(conversationId), subset);
  }

  getTurn(turnId: string): Turn {
    const turn = queries.getTurn(this.store.index, turnId);
    if (!turn) throw new AtriumError("not_found", `turn ${turnId} was not found`);
    const live = this.actor(turn.conversationId).runningTurns().find((candidate) => candidate.id === turnId);
    return live ?? turn;
  }

  timeline(turnId: string): TimelineEntry[] {
    const entries = [...buildTimeline(this.store, this.getTurn(turnId)), ...this.timelineNotes.of(turnId)];
    return entries.sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  }

  listSessions(conversationId: string): Session[] {
    return sessionsWithStatus(this.store, this.actor(conversationId));
  }

  listApprovals(status?: string): Approval[] {
    return queries.listApprovals(this.store.index, { status });
  }

  decideApproval(approvalId: string, decision: "approve" | "deny", requestKey?: string): Promise<Approval> {
    return decideApprovalRequest(this.keys, this.store, (id) => this.actor(id), approvalId, decision, requestKey);
  }

  getQuestion(questionId: string): Question {
    return findQuestion(this.store, questionId);
  }

  listAllQuestions(filter: { status?: string; conversation?: string }): Question[] {
    return queries.listQuestions(this.store.index, { status: filter.status, conversationId: filter.conversation });
  }

  listQuestions(conversationId: string, status?: string): Question[] {
    return queries.listQuestions(this.store.index, { conversationId, status });
  }

  answerQuestion(questionId: string, answer: string, requestKey?: string): Promise<Question> {
    return answerQuestionRequest(this.keys, this.store, (id) => this.actor(id), questionId, answer, requestKey);
  }

  /** With `cwd`, that project's `.atrium/agents` are listed too. */
  listAgents(cwd?: string): Agent[] {
    return this.agents.list(cwd).map((agent) => ({
      name: agent.name,
      description: agent.description,
      model: agent.model,
      tools: agent.tools,
    }));
  }

  uploadAttachment(name: string, mediaType: string, data: Buffer): Attachment {
    return saveUpload(this.store.paths, this.store.newId(), name, mediaType, data, this.store.now());
  }

  /** The file of an attachment some message of this conversation carries. */
  attachmentFile(conversationId: string, attachmentId: string): { path: string; attachment: Attachment } {
    return findAttachment(this.store, this.actor(conversationId), attachmentId);
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

  /** A verified GitHub webhook: wakes every objective whose listener matches. */
  deliverGithubEvent(event: GithubEvent): Promise<number> {
    return deliverGithubEvent(this.store, (conversationId) => this.actor(conversationId), event);
  }

  getContext(conversationId: string): ContextInfo {
    const actor = this.actor(conversationId);
    return rootContext(actor, actor.conversation().model);
  }

  compact(conversationId: string): Promise<CompactionOutcome> {
    return compactNow(this.actor(conversationId));
  }

  readArtifact(conversationId: string, artifactId: string, page: number): ArtifactPage {
    return readArtifact(this.store, this.actor(conversationId), artifactId, page);
  }

  subscribe(
    conversationId: string,
    options: { lastEventId?: number; session?: string },
    send: (delivered: Delivered<ConversationEvent>) => void,
  ): () => void {
    return subscribeToConversation(this.bus, this.actor(conversationId), options, send);
  }

  subscribeList(send: (delivered: Delivered<ListEvent>) => void): () => void {
    return this.bus.subscribeList(send);
  }

  private decorate(conversation: Omit<Conversation, "missing">): Conversation {
    return { ...conversation, missing: missingParts(conversation, this.context) };
  }

  private assertUsable(actor: ConversationActor): void {
    if (this.stopping) throw new AtriumError("not_idle", "the server is stopping");
    assertUsable(this.decorate(actor.conversation()));
  }
}

