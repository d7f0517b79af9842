import type { ConversationEvent, Delivered, ListEvent } from "../events/events";

const REPLAY_LIMIT = 1000;

type Listener<Event> = (delivered: Delivered<Event>) => void;

interface Channel {
  nextId: number;
  /** The replay window is `buffer` from `start` on; older entries are dropped in chunks, not one shift per event. */
  buffer: Array<Delivered<ConversationEvent>>;
  start: number;
  listeners: Set<Listener<ConversationEvent>>;
}

/**
 * In-process pub/sub. Each conversation numbers its events and keeps the last 1,000
 * for Last-Event-ID replay. Ids start from the process start time so they keep
 * increasing across restarts and a stale Last-Event-ID never matches by accident.
 */
export class EventBus {
  private readonly channels = new Map<string, Channel>();
  private readonly listListeners = new Set<Listener<ListEvent>>();
  private listNextId: number;
  private readonly firstId: number;

  constructor(now: () => number = Date.now) {
    this.firstId = now() * 1000;
    this.listNextId = this.firstId;
  }

  publish(event: ConversationEvent): void {
    const channel = this.channel(event.conversationId);
    const delivered = { id: ++channel.nextId, event };
    channel.buffer.push(delivered);
    if (channel.buffer.length - channel.start > REPLAY_LIMIT) {
      channel.start += 1;
      if (channel.start >= REPLAY_LIMIT) {
        channel.buffer = channel.buffer.slice(channel.start);
        channel.start = 0;
      }
    }
    for (const listener of channel.listeners) listener(delivered);
  }

  publishList(event: ListEvent): void {
    const delivered = { id: ++this.listNextId, event };
    for (const listener of this.listListeners) listener(delivered);
  }

  lastId(conversationId: string): number {
    return this.channel(conversationId).nextId;
  }

  /**
   * Events after `afterId`, or null when they are no longer all held (the caller
   * then sends a fresh snapshot instead).
   */
  replay(conversationId: string, afterId: number): Array<Delivered<ConversationEvent>> | null {
    const channel = this.channel(conversationId);
    if (afterId > channel.nextId || afterId < this.firstId) return null;
    if (afterId === channel.nextId) return [];
    const oldest = channel.buffer[channel.start];
    if (!oldest || oldest.id > afterId + 1) return null;
    return channel.buffer.slice(channel.start).filter((delivered) => delivered.id > afterId);
  }

  subscribe(conversationId: string, listener: Listener<ConversationEvent>): () => void {
    const channel = this.channel(conversationId);
    channel.listeners.add(listener);
    return () => channel.listeners.delete(listener);
  }

  subscribeList(listener: Listener<ListEvent>): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  listenerCount(conversationId: string): number {
    return this.channels.get(conversationId)?.listeners.size ?? 0;
  }

  /** Drops what a deleted conversation held; its id counter stays so ids never repeat. */
  forget(conversationId: string): void {
    const channel = this.channels.get(conversationId);
    if (!channel) return;
    channel.buffer = [];
    channel.start = 0;
    channel.listeners.clear();
  }

  private channel(conversationId: string): Channel {
    let channel = this.channels.get(conversationId);
    if (!channel) {
      channel = { nextId: this.firstId, buffer: [], start: 0, listeners: new Set() };
      this.channels.set(conversationId, channel);
    }
    return channel;
  }
}
