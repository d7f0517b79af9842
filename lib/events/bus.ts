import type { ConversationEvent, Delivered, ListEvent } from "./events";

const REPLAY_LIMIT = 1000;
/** A channel nobody listens to is dropped this long after its last event; a later Last-Event-ID gets a snapshot. */
const IDLE_CHANNEL_MS = 60_000;
const SWEEP_EVERY_MS = 10_000;
/** Beyond this many channels, the oldest without subscribers go at once, quiet or not. */
const MAX_CHANNELS = 500;

type Listener<Event> = (delivered: Delivered<Event>) => void;

interface Channel {
  /** The id of this channel's latest event (or, before any, the id the bus was at when it opened). */
  nextId: number;
  /** Events with ids up to this one are not held: a replay must start after it. */
  droppedThrough: number;
  lastActivity: number;
  /** The replay window is `buffer` from `start` on; older entries are dropped in chunks, not one shift per event. */
  buffer: Array<Delivered<ConversationEvent>>;
  start: number;
  listeners: Set<Listener<ConversationEvent>>;
  /** What a subscriber asked to be told when its subscription is ended from this side (see end()). */
  enders: Map<Listener<ConversationEvent>, () => void>;
}

/**
 * In-process pub/sub. Conversation events are numbered from one counter, so each
 * conversation's ids increase even across a channel dropped and opened again, and each
 * channel keeps its last 1,000 for Last-Event-ID replay. Ids start from the process start
 * time so they keep increasing across restarts and a stale Last-Event-ID never matches by accident.
 */
export class EventBus {
  private readonly channels = new Map<string, Channel>();
  private readonly listListeners = new Set<Listener<ListEvent>>();
  private listNextId: number;
  private eventId: number;
  private readonly firstId: number;
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.firstId = now() * 1000;
    this.listNextId = this.firstId;
    this.eventId = this.firstId;
    this.lastSweep = now();
  }

  publish(event: ConversationEvent): void {
    const channel = this.channel(event.conversationId);
    const delivered = { id: ++this.eventId, event };
    channel.nextId = delivered.id;
    channel.lastActivity = this.now();
    channel.buffer.push(delivered);
    if (channel.buffer.length - channel.start > REPLAY_LIMIT) {
      channel.droppedThrough = channel.buffer[channel.start].id;
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
    if (afterId < channel.droppedThrough) return null;
    return channel.buffer.slice(channel.start).filter((delivered) => delivered.id > afterId);
  }

  subscribe(conversationId: string, listener: Listener<ConversationEvent>, onEnd?: () => void): () => void {
    const channel = this.channel(conversationId);
    channel.listeners.add(listener);
    if (onEnd) channel.enders.set(listener, onEnd);
    return () => {
      channel.listeners.delete(listener);
      channel.enders.delete(listener);
      channel.lastActivity = this.now();
    };
  }

  /**
   * Ends every subscription of a conversation whose events this process will no longer publish
   * (a cluster node that lost the conversation's lease): each is unsubscribed and told, so its
   * client subscribes again and is carried by the node that holds it now.
   */
  end(conversationId: string): void {
    const channel = this.channels.get(conversationId);
    if (!channel) return;
    const enders = [...channel.enders.values()];
    channel.listeners.clear();
    channel.enders.clear();
    for (const ender of enders) ender();
  }

  subscribeList(listener: Listener<ListEvent>): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  /** How many subscribers the list events have (a node of a cluster reads other nodes' changes only for them). */
  get listListenerCount(): number {
    return this.listListeners.size;
  }

  listenerCount(conversationId: string): number {
    return this.channels.get(conversationId)?.listeners.size ?? 0;
  }

  /** Drops what a deleted conversation held; ids come from one counter, so they never repeat. */
  forget(conversationId: string): void {
    const channel = this.channels.get(conversationId);
    if (!channel) return;
    channel.listeners.clear();
    channel.enders.clear();
    this.channels.delete(conversationId);
  }

  /** How many conversations have a channel (for tests and the bench). */
  get channelCount(): number {
    return this.channels.size;
  }

  private channel(conversationId: string): Channel {
    let channel = this.channels.get(conversationId);
    if (!channel) {
      this.sweep();
      // Nothing before this point is held: an older Last-Event-ID gets a snapshot.
      channel = { nextId: this.eventId, droppedThrough: this.eventId, lastActivity: this.now(), buffer: [], start: 0, listeners: new Set(), enders: new Map() };
      this.channels.set(conversationId, channel);
    }
    return channel;
  }

  /**
   * Channels nobody listens to are dropped once quiet for IDLE_CHANNEL_MS (checked at most once
   * per SWEEP_EVERY_MS), and at once, oldest first, when there are more than MAX_CHANNELS.
   */
  private sweep(): void {
    const now = this.now();
    if (this.channels.size >= MAX_CHANNELS) {
      for (const [conversationId, channel] of this.channels) {
        if (this.channels.size < MAX_CHANNELS) break;
        if (channel.listeners.size === 0) this.channels.delete(conversationId);
      }
    }
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [conversationId, channel] of this.channels) {
      if (channel.listeners.size === 0 && now - channel.lastActivity > IDLE_CHANNEL_MS) this.channels.delete(conversationId);
    }
  }
}
