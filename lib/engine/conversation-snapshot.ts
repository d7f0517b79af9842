import type { OwnerContext } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Conversation } from "../events/entities";
import { conversationRow, objectiveFor, toConversation } from "../store/queries";

/**
 * The conversation as last read from the index, read on every model call: valid while the index
 * writer's revision for it is unchanged. Callers get their own copy.
 */
export class ConversationSnapshot {
  private cached: { revision: number; conversation: Omit<Conversation, "missing"> } | null = null;

  constructor(
    private readonly context: OwnerContext,
    private readonly conversationId: string,
  ) {}

  read(): Omit<Conversation, "missing"> {
    const revision = this.context.store.writer.revision(this.conversationId);
    if (this.cached?.revision !== revision) {
      const row = conversationRow(this.context.store.index, this.conversationId);
      if (!row) throw new AtriumError("not_found", `conversation ${this.conversationId} was not found`);
      this.cached = { revision, conversation: toConversation(row, objectiveFor(this.context.store.index, this.conversationId)) };
    }
    const conversation = { ...this.cached.conversation };
    if (conversation.forkedFrom) conversation.forkedFrom = { ...conversation.forkedFrom };
    if (conversation.objective) conversation.objective = { ...conversation.objective };
    return conversation;
  }
}
