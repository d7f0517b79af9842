import { copyCheckpointsToFork } from "../checkpoints/checkpoint-hooks";
import type { Conversation, Turn } from "../events/entities";
import type { AttachmentRef } from "../store/records";
import { titleAfterFirstReply } from "./auto-title";
import type { ConversationActor } from "./conversation-actor";
import { discardNewConversation, stageNewConversation, type CreateConversationInput } from "./conversation-creation";
import type { ConversationPatch } from "./conversation-patch";
import { replayCreation } from "./conversation-reads";
import { IndexBehindError } from "../store/index-catch-up";
import { checkMachinePatch } from "../machines/machine-move";
import type { OwnerContext } from "./engine-owner";
import { forkConversation } from "./fork";
import type { OwnerCache } from "./owner-cache";
import type { ReadModel } from "./read-model";
import type { ConversationPages } from "./conversation-pages";
import type { RequestKeys } from "./request-keys";
import { revertFileOfTurn, rewindConversation, type RewindOptions, type RewindOutcome } from "./rewind";

/**
 * A conversation's life as a whole (DESIGN §3, §8): created with its first message, changed,
 * forked, rewound into a new conversation, deleted. Each step is its owner's command; what
 * spans two conversations (a fork reads one and creates another) is sequenced here.
 */
export class ConversationLifecycle {
  constructor(
    private readonly context: OwnerContext,
    private readonly owners: OwnerCache,
    private readonly keys: RequestKeys,
    private readonly reads: ReadModel,
    /** One conversation's pages wherever its owner runs (a cluster's creation replayed on another node). */
    private readonly pages: ConversationPages,
  ) {}

  async create(input: CreateConversationInput): Promise<{ conversation: Conversation; message: { id: string }; turn: Turn }> {
    const bus = this.context.bus;
    return this.keys.run(
      "",
      input.requestKey,
      { ...input },
      async (keyed) => {
        const { conversationId, rootSessionId, attachments } = await stageNewConversation(this.context, input, keyed);
        const actor = this.owners.get(conversationId);
        bus.publishList({ type: "conversation.created", conversationId, conversation: this.reads.getConversation(conversationId) });
        try {
          const outcome = await actor.sendMessage({ text: input.text, mode: "auto", sessionId: rootSessionId, origin: "owner", attachments });
          const titleModel = this.context.config.titleModel;
          if (titleModel && outcome.turn) titleAfterFirstReply(actor, outcome.turn.id, titleModel);
          return { conversation: this.reads.getConversation(conversationId), message: { id: outcome.message.id }, turn: outcome.turn! };
        } catch (error) {
          // Its first message could not be recorded: the conversation goes, with its requestKey.
          // One recorded while the index failed stands (its turn runs): the answer is the storage error.
          if (!(error instanceof IndexBehindError)) await this.undoCreation(actor, attachments ?? []);
          throw error;
        }
      },
      (reference) => {
        const conversationId = String(reference.conversationId);
        // On a node of a cluster, made by any node: read wherever its owner runs now.
        if (this.context.store.cluster) return this.replayCreated(conversationId);
        // A first message recorded while the index failed: its turn is read once the index has it.
        this.context.store.catchUp.ensureCurrent(conversationId);
        return replayCreation(this.context.store, this.reads.getConversation(conversationId));
      },
    );
  }

  /** The answer a repeated creation gets on a node of a cluster: the conversation and its first turn, as their pages show them. */
  private async replayCreated(conversationId: string): Promise<{ conversation: Conversation; message: { id: string }; turn: Turn }> {
    const conversation = await this.pages.getConversation(conversationId);
    const turn = (await this.pages.listTurns(conversationId)).find((candidate) => candidate.sessionId === conversation.rootSessionId);
    return { conversation, message: { id: turn?.inputMessageIds[0] ?? "" }, turn: turn! };
  }

  private async undoCreation(actor: ConversationActor, attachments: AttachmentRef[]): Promise<void> {
    const conversationId = actor.id;
    await actor.execute({ type: "discard_new_conversation" }).catch(() => undefined);
    await discardNewConversation(this.context, conversationId, attachments);
    this.forget(actor);
  }

  /** A move to another machine is checked on that machine first (its folder, its roots). */
  async update(conversationId: string, patch: ConversationPatch): Promise<Conversation> {
    const actor = this.owners.get(conversationId);
    const checked = await actor.track(checkMachinePatch(this.context.machines, actor.conversation(), patch));
    await actor.execute({ type: "update_conversation", patch: checked });
    return this.reads.getConversation(conversationId);
  }

  async delete(conversationId: string): Promise<void> {
    const actor = this.owners.get(conversationId);
    await actor.execute({ type: "delete_conversation" });
    this.context.checkpoints?.forget(conversationId);
    this.forget(actor);
  }

  /** The owner of a conversation that is gone: out of memory, its events forgotten, every sidebar told. */
  private forget(actor: ConversationActor): void {
    this.owners.drop(actor);
    this.context.bus.forget(actor.id);
    this.context.bus.publishList({ type: "conversation.deleted", conversationId: actor.id });
  }

  async fork(conversationId: string, options: { throughItemId?: string; beforeItemId?: string; requestKey?: string }): Promise<Conversation> {
    const source = this.owners.get(conversationId);
    return source.track(
      this.keys.run(
        "",
        options.requestKey,
        { fork: conversationId, ...options },
        async (keyed) => {
          const forkedId = await forkConversation(this.context, source, { ...options, keyed });
          const forked = this.owners.get(forkedId);
          await copyCheckpointsToFork(source, options, (fields) => forked.recordCheckpoint(fields));
          const conversation = this.reads.getConversation(forkedId);
          this.context.bus.publishList({ type: "conversation.created", conversationId: forkedId, conversation });
          return conversation;
        },
        (reference) => this.pages.getConversation(String(reference.conversationId)),
      ),
    );
  }

  revertFile(turn: Turn, filePath: string, force: boolean): Promise<{ restored: string[] }> {
    const actor = this.owners.get(turn.conversationId);
    return actor.track(revertFileOfTurn(actor, turn.id, filePath, force));
  }

  rewind(conversationId: string, itemId: string, options: RewindOptions = {}): Promise<RewindOutcome> {
    const fork = (beforeItemId: string, requestKey: string | undefined) => this.fork(conversationId, { beforeItemId, requestKey });
    const actor = this.owners.get(conversationId);
    return actor.track(rewindConversation(actor, itemId, options, fork));
  }
}
