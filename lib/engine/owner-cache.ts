import type { ConversationActor } from "./conversation-actor";

/** Owners kept in memory while idle; the rest are rebuilt on demand. */
export const MAX_LOADED_OWNERS = 200;

/**
 * The conversation owners in memory, most recently used last. Beyond the limit the least
 * recently used idle ones are dropped (never one with a running or parked turn, a compaction or
 * a live subscriber) and rebuilt from their records when next needed.
 */
export class OwnerCache {
  private readonly owners = new Map<string, ConversationActor>();
  private evictionScheduled = false;

  constructor(
    private readonly load: (conversationId: string) => ConversationActor,
    private readonly limit = MAX_LOADED_OWNERS,
    /** Told of each owner dropped for the limit (a cluster node hands its lease back). */
    private readonly onEvict: (conversationId: string) => void = () => undefined,
  ) {}

  /** The owner in memory, if any, without loading it or marking it used. */
  peek(conversationId: string): ConversationActor | undefined {
    return this.owners.get(conversationId);
  }

  get(conversationId: string): ConversationActor {
    let owner = this.owners.get(conversationId);
    if (owner) {
      this.owners.delete(conversationId);
      this.owners.set(conversationId, owner);
      return owner;
    }
    owner = this.load(conversationId);
    this.owners.set(conversationId, owner);
    if (this.owners.size > this.limit && !this.evictionScheduled) {
      // After the caller has enqueued its command, so the owner it holds is never the one dropped.
      this.evictionScheduled = true;
      setImmediate(() => this.evict());
    }
    return owner;
  }

  /** Forgets this owner (deleted conversation), unless another has taken its place. */
  drop(owner: ConversationActor): void {
    if (this.owners.get(owner.id) === owner) this.owners.delete(owner.id);
  }

  values(): IterableIterator<ConversationActor> {
    return this.owners.values();
  }

  get size(): number {
    return this.owners.size;
  }

  private evict(): void {
    this.evictionScheduled = false;
    for (const [conversationId, owner] of this.owners) {
      if (this.owners.size <= this.limit) break;
      if (!owner.evictable) continue;
      this.owners.delete(conversationId);
      owner.retire();
      this.onEvict(conversationId);
    }
  }
}
