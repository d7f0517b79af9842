import fs from "node:fs";
import path from "node:path";
import { loadAgentDefinitions, type AgentDefinition } from "../agents/definitions";
import type { AtriumConfig } from "../config/config";
import { AtriumError, isStorageError, storageError } from "../errors";
import { readArtifactPage, type ArtifactPage } from "../context/artifacts";
import type { Agent, Approval, Attachment, ContextInfo, Conversation, Item, Objective, Question, Session, TimelineEntry, Turn, Waiting } from "../events/entities";
import type { ConversationEvent, Delivered, ListEvent } from "../events/events";
import { createModelRegistry, type ModelRegistry } from "../models/registry";
import { catchUpIndex } from "../store/ingest";
import * as queries from "../store/queries";
import type { Effort } from "../store/records";
import type { Store } from "../store/store";
import { ConversationStaging } from "../store/conversation-staging";
import type { AttachmentRef } from "../store/records";
import { attachmentPath, checkUploads, claimUploads, removeStaleUploads, returnUpload, saveUpload } from "../store/uploads";
import { builtinFileAndShellTools } from "../tools/builtin-tools";
import { EventBus } from "./bus";
import { compactNow, rootContext, type CompactionOutcome } from "./compaction-step";
import { ConversationActor, type MessageOutcome } from "./conversation-actor";
import type { EngineContext } from "./engine-context";
import { engineTools } from "./engine-tools";
import { forkConversation } from "./fork";
import { recoverOpenTurns } from "./recovery";
import { RequestKeys, type KeyReference } from "./request-keys";
import { missingParts } from "./missing";
import { changeObjective, openObjective } from "./objectives";
import { buildTimeline } from "./timeline";
import { wakeObjective, type GithubEvent } from "./webhooks";
import { titleFromMessage } from "./titles";

/** Owners kept in memory while idle; the rest are rebuilt on demand. */
const MAX_LOADED_OWNERS = 200;

export interface RuntimeOptions {
  store: Store;
  config: AtriumConfig;
  models?: ModelRegistry;
  log?: (message: string) => void;
  /** Idle conversation owners kept in memory (default MAX_LOADED_OWNERS). */
  maxLoadedOwners?: number;
}

export interface CreateConversationInput {
  text: string;
  attachments?: string[];
  agent?: string;
  model?: string;
  effort?: Effort;
  cwd?: string;
  requestKey?: string;
}

export interface ConversationPatch {
  title?: string;
  archived?: boolean;
  protected?: boolean;
  model?: string;
  effort?: Effort;
  cwd?: string;
}

/**
 * The one Runtime of a server process: owns every conversation actor, the event bus,
 * the models and tools. Route handlers, server actions and the CLI call these methods.
 */
export class Runtime {
  readonly bus = new EventBus();
  readonly store: Store;
  readonly config: AtriumConfig;
  readonly models: ModelRegistry;
  readonly context: EngineContext;
  readonly keys: RequestKeys;
  private readonly actors = new Map<string, ConversationActor>();
  private agents = new Map<string, AgentDefinition>();
  private readonly timelineNotes = new Map<string, TimelineEntry[]>();
  private stopping = false;
  private readonly maxLoadedOwners: number;
  private evictionScheduled = false;
  private uploadSweep: NodeJS.Timeout | null = null;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.config = options.config;
    this.models = options.models ?? createModelRegistry(options.config);
    this.keys = new RequestKeys(this.store);
    this.maxLoadedOwners = options.maxLoadedOwners ?? MAX_LOADED_OWNERS;
    const log = options.log ?? ((message: string) => console.log(message));
    this.reloadAgents(log);
    this.context = {
      store: this.store,
      bus: this.bus,
      config: this.config,
      models: this.models,
      agent: (name) => this.agents.get(name),
      agents: () => [...this.agents.values()],
      tools: builtinFileAndShellTools,
      engineTools,
      log,
      noteTimeline: (turnId, entry) => {
        const entries = this.timelineNotes.get(turnId) ?? [];
        entries.push(entry);
        this.timelineNotes.set(turnId, entries);
        // Bounded: only recent turns keep their retry notes.
        if (this.timelineNotes.size > 2000) this.timelineNotes.delete(this.timelineNotes.keys().next().value!);
      },
    };
  }

  /** Catches the index up with the files and settles turns left open by a crash; before listening. */
  async start(): Promise<void> {
    ConversationStaging.removeLeftovers(this.store);
    this.store.removeRetiredDirectories();
    for (const outcome of catchUpIndex(this.store)) {
      if (outcome.status === "skipped") this.context.log(`skipped conversation ${outcome.conversationId}: ${outcome.reason}`);
      else if (outcome.status === "indexed") this.context.log(`re-indexed conversation ${outcome.conversationId}`);
    }
    await recoverOpenTurns(this.context, (conversationId) => this.actor(conversationId));
    removeStaleUploads(this.store.paths, this.store.now());
    this.uploadSweep = setInterval(() => removeStaleUploads(this.store.paths, this.store.now()), 60 * 60 * 1000);
    this.uploadSweep.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.uploadSweep) clearInterval(this.uploadSweep);
    const finishing: Array<Promise<void>> = [];
    for (const actor of this.actors.values()) {
      actor.stopped = true;
      for (const session of actor.sessions.values()) {
        const runner = session.runner;
        // Parked turns stay parked on disk and resume after the restart.
        if (!runner || runner.turn.status !== "running") continue;
        runner.interrupt({ code: "server_stopped", message: "The Atrium server stopped during this turn.", byOwner: false });
        finishing.push(runner.finished);
      }
    }
    await Promise.race([Promise.all(finishing), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await this.store.close();
  }

  reloadAgents(log: (message: string) => void = this.context?.log ?? console.log): void {
    const { agents, problems } = loadAgentDefinitions([this.store.paths.agents]);
    for (const problem of problems) log(`agent definition ${problem.path} skipped: ${problem.message}`);
    this.agents = agents;
  }

  actor(conversationId: string): ConversationActor {
    let actor = this.actors.get(conversationId);
    if (actor) {
      // Most recently used last, so eviction finds the coldest first.
      this.actors.delete(conversationId);
      this.actors.set(conversationId, actor);
      return actor;
    }
    actor = ConversationActor.load(this.context, conversationId);
    this.actors.set(conversationId, actor);
    if (this.actors.size > this.maxLoadedOwners && !this.evictionScheduled) {
      // After the caller has enqueued its command, so the owner it holds is never the one dropped.
      this.evictionScheduled = true;
      setImmediate(() => this.evictIdleActors());
    }
    return actor;
  }

  /**
   * Keeps memory bounded: beyond MAX_LOADED_OWNERS, the least recently used idle owners are
   * dropped (never one with a running or parked turn, a compaction or a live subscriber) and
   * rebuilt from the index and files when next needed.
   */
  private evictIdleActors(): void {
    this.evictionScheduled = false;
    if (this.actors.size <= this.maxLoadedOwners) return;
    for (const [conversationId, actor] of this.actors) {
      if (this.actors.size <= this.maxLoadedOwners) break;
      if (actor.evictable) this.actors.delete(conversationId);
    }
  }

  /** How many conversation owners are in memory (for tests and the bench). */
  get loadedOwners(): number {
    return this.actors.size;
  }

  // ---- conversations -------------------------------------------------------

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
        const agentName = input.agent ?? "default";
        const agent = this.agents.get(agentName);
        if (!agent) throw new AtriumError("missing_agent", `no agent named "${agentName}" is defined`);
        const model = input.model ?? agent.model ?? this.config.defaultModel;
        if (!this.models.get(model)) throw new AtriumError("missing_model", `no model "${model}" is configured`);
        const cwd = path.resolve(input.cwd ?? this.config.defaultCwd);
        if (!isDirectory(cwd)) throw new AtriumError("missing_cwd", `the working directory ${cwd} does not exist`);
        const effort = this.models.get(model)?.effort ? (input.effort ?? null) : null;
        if (input.attachments?.length) checkUploads(this.store.paths, input.attachments);
        const conversationId = this.store.newId();
        const rootSessionId = this.store.newId();
        const staging = ConversationStaging.begin(this.store, conversationId);
        let attachments: AttachmentRef[] | undefined;
        try {
          await staging.appendMetadata({
            type: "conversation.created",
            conversationId,
            title: titleFromMessage(input.text),
            titleSource: "auto",
            agent: agentName,
            model,
            effort,
            cwd,
            executor: "local",
            rootSessionId,
            forkedFrom: null,
            ...keyed,
          });
          await staging.appendMetadata({ type: "session.created", sessionId: rootSessionId, agent: agentName, model, parentSessionId: null, depth: 0 });
          attachments = input.attachments?.length ? input.attachments.map((id) => staging.claimUpload(id)) : undefined;
          await staging.commit();
        } catch (error) {
          await staging.abandon();
          throw storageError(error, "the new conversation");
        }
        const actor = this.actor(conversationId);
        this.bus.publishList({ type: "conversation.created", conversationId, conversation: this.getConversation(conversationId) });
        try {
          const outcome = await actor.sendMessage({ text: input.text, mode: "auto", sessionId: rootSessionId, origin: "owner", attachments });
          return { conversation: this.getConversation(conversationId), message: { id: outcome.message.id }, turn: outcome.turn! };
        } catch (error) {
          // Its first message could not be recorded: the conversation goes, with its requestKey.
          await this.undoCreation(actor, attachments ?? []);
          throw error;
        }
      },
      (reference) => this.replayCreation(reference),
    );
  }

  private async undoCreation(actor: ConversationActor, attachments: AttachmentRef[]): Promise<void> {
    const conversationId = actor.id;
    await actor.locked(() => actor.markDeleted()).catch(() => undefined);
    await this.store.closeConversation(conversationId);
    for (const attachment of attachments) {
      const from = attachmentPath(this.store.paths, conversationId, attachment);
      if (fs.existsSync(from)) saveUpload(this.store.paths, attachment.id, attachment.name, attachment.mediaType, fs.readFileSync(from), this.store.now());
    }
    fs.rmSync(this.store.paths.conversation(conversationId), { recursive: true, force: true });
    this.store.writer.transaction(() => this.store.writer.removeConversation(conversationId));
    if (this.actors.get(conversationId) === actor) this.actors.delete(conversationId);
    this.bus.forget(conversationId);
    this.bus.publishList({ type: "conversation.deleted", conversationId });
  }

  private replayCreation(reference: KeyReference): { conversation: Conversation; message: { id: string }; turn: Turn } {
    const conversationId = String(reference.conversationId);
    const conversation = this.getConversation(conversationId);
    const turn = queries.listTurns(this.store.index, conversationId, conversation.rootSessionId)[0];
    return { conversation, message: { id: turn?.inputMessageIds[0] ?? "" }, turn };
  }

  async updateConversation(conversationId: string, patch: ConversationPatch): Promise<Conversation> {
    const actor = this.actor(conversationId);
    return actor.locked(async () => {
      const current = actor.conversation();
      const changes: ConversationPatch & { titleSource?: "owner" } = {};
      if (patch.title !== undefined && patch.title !== current.title) {
        const title = patch.title.trim();
        if (title === "") throw new AtriumError("bad_request", "title must not be empty");
        changes.title = title.slice(0, 200);
        changes.titleSource = "owner";
      }
      if (patch.archived !== undefined && patch.archived !== current.archived) changes.archived = patch.archived;
      if (patch.protected !== undefined && patch.protected !== current.protected) changes.protected = patch.protected;
      if (patch.model !== undefined && patch.model !== current.model) {
        if (!this.models.get(patch.model)) throw new AtriumError("missing_model", `no model "${patch.model}" is configured`);
        changes.model = patch.model;
      }
      if (patch.effort !== undefined && patch.effort !== current.effort) changes.effort = patch.effort;
      if (patch.cwd !== undefined && patch.cwd !== current.cwd) {
        const cwd = path.resolve(patch.cwd);
        if (!isDirectory(cwd)) throw new AtriumError("missing_cwd", `the working directory ${cwd} does not exist`);
        changes.cwd = cwd;
      }
      if (Object.keys(changes).length > 0) {
        await this.store.appendMetadata(conversationId, { type: "conversation.updated", ...changes });
        actor.publishConversation();
      }
      return this.getConversation(conversationId);
    });
  }

  async deleteConversation(conversationId: string): Promise<void> {
    const actor = this.actor(conversationId);
    await actor.locked(async () => {
      actor.assertDeletable();
      // Tombstone first: if the directory removal is interrupted, reindex finishes it. Only once
      // it is on disk is the conversation gone: a refused tombstone (disk full) deletes nothing.
      try {
        await this.store.appendMetadata(conversationId, { type: "conversation.deleted", conversationId });
      } catch (error) {
        if (!isStorageError(error)) throw error;
        // A disk too full for the tombstone can still drop the conversation, which frees space.
        await this.store.retireConversation(conversationId).catch(() => Promise.reject(error));
        actor.markDeleted();
        return;
      }
      actor.markDeleted();
      await this.store.closeConversation(conversationId);
      fs.rmSync(this.store.paths.conversation(conversationId), { recursive: true, force: true });
    });
    if (this.actors.get(conversationId) === actor) this.actors.delete(conversationId);
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
        const conversation = this.getConversation(forkedId);
        this.bus.publishList({ type: "conversation.created", conversationId: forkedId, conversation });
        return conversation;
      },
      (reference) => this.getConversation(String(reference.conversationId)),
    );
  }

  async rewind(conversationId: string, itemId: string, requestKey?: string): Promise<{ conversation: Conversation; draft: string }> {
    const actor = this.actor(conversationId);
    const item = actor.root.byId.get(itemId);
    if (!item) throw new AtriumError("not_found", `item ${itemId} was not found in this conversation`);
    if (item.kind !== "user_message") throw new AtriumError("bad_request", "only the owner's messages can be restarted from");
    const conversation = await this.fork(conversationId, { beforeItemId: itemId, requestKey });
    return { conversation, draft: item.text ?? "" };
  }

  // ---- messages and the inbox ------------------------------------------------

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
        const claimed = input.attachments?.length ? claimUploads(this.store.paths, conversationId, input.attachments) : [];
        const attachments = claimed.length ? claimed.map((upload) => upload.attachment) : undefined;
        try {
          const outcome = await actor.sendMessage({ text: input.text, mode: input.mode, sessionId, origin: "owner", attachments, ...keyed });
          for (const upload of claimed) upload.forget();
          return outcome;
        } catch (error) {
          // Nothing names the uploads: a retry with the same key may claim them again.
          for (const upload of claimed) returnUpload(this.store.paths, upload);
          throw error;
        }
      },
      (reference) => this.replayMessage(actor, reference, input.mode),
    );
  }

  private replayMessage(actor: ConversationActor, reference: KeyReference, mode: MessageOutcome["message"]["mode"]): MessageOutcome {
    if (reference.kind === "turn.started") {
      return {
        message: { id: String(reference.messageId), mode, status: "started" },
        turn: queries.getTurn(this.store.index, String(reference.turnId)),
      };
    }
    const queued = reference.mode as string;
    const status = queued === "steer" ? "steered" : queued === "jump" ? "jumped" : "queued";
    const joined = typeof reference.turnId === "string" ? reference.turnId : null;
    const live = joined ? actor.runningTurns().find((turn) => turn.id === joined) : undefined;
    return {
      message: { id: String(reference.messageId), mode, status },
      turn: joined ? (live ?? queries.getTurn(this.store.index, joined)) : null,
    };
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

  // ---- reads -------------------------------------------------------------

  listItems(conversationId: string, options: { session?: string; after?: number; limit?: number }): { items: Item[]; nextCursor: number | null } {
    const actor = this.actor(conversationId);
    const sessionId = options.session ?? actor.rootSessionId;
    const session = actor.session(sessionId);
    const after = options.after ?? 0;
    const limit = Math.min(options.limit ?? 100, 500);
    // From memory, so partial text of a streaming item is included.
    const page = session.items.filter((item) => item.seq > after).slice(0, limit + 1);
    const items = page.slice(0, limit).map((item) => ({ ...item }));
    return { items, nextCursor: page.length > limit ? items[items.length - 1].seq : null };
  }

  listTurns(conversationId: string): Turn[] {
    const actor = this.actor(conversationId);
    const live = new Map(actor.runningTurns().map((turn) => [turn.id, turn]));
    return queries.listTurns(this.store.index, conversationId).map((turn) => live.get(turn.id) ?? turn);
  }

  getTurn(turnId: string): Turn {
    const turn = queries.getTurn(this.store.index, turnId);
    if (!turn) throw new AtriumError("not_found", `turn ${turnId} was not found`);
    const live = this.actor(turn.conversationId).runningTurns().find((candidate) => candidate.id === turnId);
    return live ?? turn;
  }

  timeline(turnId: string): TimelineEntry[] {
    const entries = [...buildTimeline(this.store, this.getTurn(turnId)), ...(this.timelineNotes.get(turnId) ?? [])];
    return entries.sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  }

  listSessions(conversationId: string): Session[] {
    const actor = this.actor(conversationId);
    return queries.listSessions(this.store.index, conversationId).map((session) => ({
      ...session,
      status: liveStatus(actor.sessions.get(session.id)?.runner?.turn.status),
    }));
  }

  listApprovals(status?: string): Approval[] {
    return queries.listApprovals(this.store.index, { status });
  }

  decideApproval(approvalId: string, decision: "approve" | "deny"): Promise<Approval> {
    const approval = queries.getApproval(this.store.index, approvalId);
    if (!approval) throw new AtriumError("not_found", `approval ${approvalId} was not found`);
    return this.actor(approval.conversationId).decideApproval(approvalId, decision);
  }

  getQuestion(questionId: string): Question {
    const question = queries.getQuestion(this.store.index, questionId);
    if (!question) throw new AtriumError("not_found", `question ${questionId} was not found`);
    return question;
  }

  listAllQuestions(filter: { status?: string; conversation?: string }): Question[] {
    return queries.listQuestions(this.store.index, { status: filter.status, conversationId: filter.conversation });
  }

  listQuestions(conversationId: string, status?: string): Question[] {
    return queries.listQuestions(this.store.index, { conversationId, status });
  }

  answerQuestion(questionId: string, answer: string): Promise<Question> {
    const question = this.getQuestion(questionId);
    return this.actor(question.conversationId).answerQuestion(questionId, answer);
  }

  listAgents(): Agent[] {
    return [...this.agents.values()].map((agent) => ({
      name: agent.name,
      description: agent.description,
      model: agent.model,
      tools: agent.tools,
    }));
  }

  // ---- attachments -------------------------------------------------------------

  uploadAttachment(name: string, mediaType: string, data: Buffer): Attachment {
    return saveUpload(this.store.paths, this.store.newId(), name, mediaType, data, this.store.now());
  }

  /** The file of an attachment some message of this conversation carries. */
  attachmentFile(conversationId: string, attachmentId: string): { path: string; attachment: Attachment } {
    const actor = this.actor(conversationId);
    for (const session of actor.sessions.values()) {
      for (const item of session.items) {
        const attachment = item.attachments?.find((candidate) => candidate.id === attachmentId);
        if (attachment) return { path: attachmentPath(this.store.paths, conversationId, attachment), attachment };
      }
    }
    throw new AtriumError("not_found", `attachment ${attachmentId} was not found in this conversation`);
  }

  // ---- objectives and webhooks -----------------------------------------------

  openObjective(conversationId: string, text: string): Promise<Objective> {
    const actor = this.actor(conversationId);
    this.assertUsable(actor);
    return openObjective(actor, text);
  }

  changeObjective(conversationId: string, status: "open" | "completed" | "blocked" | "cancelled" | "paused", note?: string): Promise<Objective> {
    return changeObjective(this.actor(conversationId), { status, note });
  }

  /** A verified GitHub webhook: wakes every objective whose listener matches. */
  async deliverGithubEvent(event: GithubEvent): Promise<number> {
    const waiting = this.store.index.$client
      .prepare(`SELECT DISTINCT conversation_id FROM objectives WHERE status = 'waiting_event'`)
      .all() as Array<{ conversation_id: string }>;
    let matched = 0;
    for (const { conversation_id: conversationId } of waiting) {
      if (await wakeObjective(this.actor(conversationId), event)) matched += 1;
    }
    return matched;
  }

  // ---- context -------------------------------------------------------------

  getContext(conversationId: string): ContextInfo {
    const actor = this.actor(conversationId);
    return rootContext(actor, actor.conversation().model);
  }

  compact(conversationId: string): Promise<CompactionOutcome> {
    return compactNow(this.actor(conversationId));
  }

  readArtifact(conversationId: string, artifactId: string, page: number): ArtifactPage {
    this.actor(conversationId);
    const found = readArtifactPage(this.store.paths.artifacts(conversationId), artifactId, page);
    if (!found) throw new AtriumError("not_found", `artifact ${artifactId} was not found in this conversation`);
    if (page > found.artifact.pages) throw new AtriumError("not_found", `artifact ${artifactId} has ${found.artifact.pages} pages`);
    return found;
  }

  // ---- live events -----------------------------------------------------------

  /**
   * Snapshot (or replay after Last-Event-ID) then live events, taken in one synchronous
   * step so nothing falls between them and nothing is sent twice.
   */
  subscribe(
    conversationId: string,
    options: { lastEventId?: number; session?: string },
    send: (delivered: Delivered<ConversationEvent>) => void,
  ): () => void {
    const actor = this.actor(conversationId);
    if (options.session) actor.session(options.session);
    const matches = (event: ConversationEvent) => !options.session || !event.sessionId || event.sessionId === options.session;
    const replay = options.lastEventId !== undefined ? this.bus.replay(conversationId, options.lastEventId) : null;
    if (replay) {
      for (const delivered of replay) if (matches(delivered.event)) send(delivered);
    } else {
      const sessionFilter = (candidate: { sessionId: string }) => !options.session || candidate.sessionId === options.session;
      send({
        id: this.bus.lastId(conversationId),
        event: {
          type: "snapshot",
          conversationId,
          items: actor.liveItems().filter(sessionFilter),
          turns: actor.runningTurns().filter(sessionFilter),
          waiting: actor.waitingList().filter(sessionFilter),
        },
      });
    }
    return this.bus.subscribe(conversationId, (delivered) => {
      if (matches(delivered.event)) send(delivered);
    });
  }

  subscribeList(send: (delivered: Delivered<ListEvent>) => void): () => void {
    return this.bus.subscribeList(send);
  }

  // ---- helpers -------------------------------------------------------------

  private decorate(conversation: Omit<Conversation, "missing">): Conversation {
    return { ...conversation, missing: missingParts(conversation, this.context) };
  }

  private assertUsable(actor: ConversationActor): void {
    if (this.stopping) throw new AtriumError("not_idle", "the server is stopping");
    const conversation = this.decorate(actor.conversation());
    if (conversation.missing.includes("cwd")) {
      throw new AtriumError("missing_cwd", `the working directory ${conversation.cwd} does not exist on this machine; pick another one`);
    }
    if (conversation.missing.includes("model")) {
      throw new AtriumError("missing_model", `the model "${conversation.model}" is not configured on this machine; pick another one`);
    }
    if (conversation.missing.includes("agent")) {
      throw new AtriumError("missing_agent", `the agent "${conversation.agent}" is not defined on this machine`);
    }
  }
}

function isDirectory(directory: string): boolean {
  try {
    return fs.statSync(directory).isDirectory();
  } catch {
    return false;
  }
}

function liveStatus(status: Turn["status"] | undefined): Session["status"] {
  if (status === "running") return "running";
  if (status === "waiting_approval" || status === "waiting_user") return "waiting";
  return "idle";
}
