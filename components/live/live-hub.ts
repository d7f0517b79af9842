import type { ListEvent } from "@/lib/events/events";
import type { ConversationEvent } from "@/lib/events/events";
import type { StreamFrame } from "@/lib/api/stream-schemas";
import { CHANNEL_NAME, LOCK_NAME, type LiveSubscription, type TabMessage } from "./live-protocol";
import { StreamConnection } from "./stream-connection";

export type ConnectionState = "connecting" | "open" | "reconnecting";

interface LocalSubscriber {
  subscription: LiveSubscription;
  state: ConnectionState;
  onEvent(event: ConversationEvent): void;
  onState(state: ConnectionState): void;
}

interface ListSubscriber {
  onEvent(event: ListEvent): void;
  onOpen?(): void;
}

/**
 * This tab's end of the browser's one live stream (DESIGN §8). One tab of the origin, the
 * leader (elected with Web Locks), holds the connection and fans frames out over a
 * BroadcastChannel; every tab keeps its own subscribers and the last id each has processed,
 * so a new leader resumes every subscription exactly where its tab stopped. Without Web Locks
 * or BroadcastChannel the tab holds a stream of its own.
 */
class LiveHub {
  private readonly tabId = Math.random().toString(36).slice(2, 10);
  private nextKey = 0;
  private readonly subscribers = new Map<string, LocalSubscriber>();
  private readonly listSubscribers = new Set<ListSubscriber>();
  private channel: BroadcastChannel | null = null;
  private connection: StreamConnection | null = null;
  private started = false;

  subscribeConversation(
    conversationId: string,
    session: string | undefined,
    onEvent: (event: ConversationEvent) => void,
    onState: (state: ConnectionState) => void,
  ): () => void {
    this.start();
    const key = `${this.tabId}.${++this.nextKey}`;
    const subscriber: LocalSubscriber = { subscription: { key, conversationId, session }, state: "connecting", onEvent, onState };
    this.subscribers.set(key, subscriber);
    this.toLeader({ kind: "subscribe", subscriptions: [subscriber.subscription] });
    return () => {
      this.subscribers.delete(key);
      this.toLeader({ kind: "unsubscribe", keys: [key] });
    };
  }

  subscribeList(subscriber: ListSubscriber): () => void {
    this.start();
    this.listSubscribers.add(subscriber);
    return () => this.listSubscribers.delete(subscriber);
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    const canShare = typeof BroadcastChannel === "function" && typeof navigator !== "undefined" && "locks" in navigator;
    if (!canShare) {
      this.becomeLeader();
      return;
    }
    this.channel = new BroadcastChannel(CHANNEL_NAME);
    this.channel.onmessage = (message: MessageEvent<TabMessage>) => this.handle(message.data);
    window.addEventListener("pagehide", () => {
      this.toLeader({ kind: "unsubscribe", keys: [...this.subscribers.keys()] });
    });
    // Back from the back/forward cache: the leader dropped this tab's keys at pagehide.
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.toLeader({ kind: "subscribe", subscriptions: this.ownSubscriptions() });
    });
    // Held until this tab closes; the next tab waiting for it takes the stream over.
    void navigator.locks.request(LOCK_NAME, () => {
      this.becomeLeader();
      return new Promise<void>(() => undefined);
    });
  }

  private becomeLeader(): void {
    // Visible to tests and to anyone debugging which tab holds the stream.
    document.documentElement.dataset.liveLeader = "true";
    this.connection = new StreamConnection({
      frame: (frame) => this.broadcast({ kind: "frame", frame }),
      opened: () => this.broadcast({ kind: "opened" }),
      subscribed: (keys) => this.broadcast({ kind: "subscribed", keys }),
      disconnected: () => this.broadcast({ kind: "disconnected" }),
    });
    this.connection.start();
    this.connection.add(this.ownSubscriptions());
    this.channel?.postMessage({ kind: "leader" } satisfies TabMessage);
  }

  private ownSubscriptions(): LiveSubscription[] {
    return [...this.subscribers.values()].map((subscriber) => subscriber.subscription);
  }

  /** Leader-bound messages: handled here when this tab leads, else posted to the leader. */
  private toLeader(message: TabMessage): void {
    if (this.connection) this.handleAsLeader(message);
    else this.channel?.postMessage(message);
  }

  /** Messages from the leader reach this tab and every other. */
  private broadcast(message: TabMessage): void {
    this.handle(message);
    this.channel?.postMessage(message);
  }

  private handleAsLeader(message: TabMessage): void {
    if (message.kind === "subscribe") this.connection?.add(message.subscriptions);
    else if (message.kind === "unsubscribe") this.connection?.remove(message.keys);
  }

  private handle(message: TabMessage): void {
    switch (message.kind) {
      case "subscribe":
      case "unsubscribe":
        this.handleAsLeader(message);
        return;
      case "leader":
        if (!this.connection) this.channel?.postMessage({ kind: "subscribe", subscriptions: this.ownSubscriptions() } satisfies TabMessage);
        return;
      case "frame":
        this.deliver(message.frame);
        return;
      case "opened":
        for (const subscriber of [...this.listSubscribers]) subscriber.onOpen?.();
        return;
      case "subscribed":
        for (const key of message.keys) this.setState(key, "open");
        return;
      case "disconnected":
        for (const key of this.subscribers.keys()) this.setState(key, "reconnecting");
        return;
    }
  }

  private deliver(frame: StreamFrame): void {
    if (frame.type === "list") {
      for (const subscriber of [...this.listSubscribers]) subscriber.onEvent(frame.event);
      return;
    }
    if (frame.type === "subscription.failed") {
      // Asked for again by the leader's connection while it may pass (its node is down): the tab shows it is reconnecting.
      if (frame.error.code === "node_unavailable") this.setState(frame.key, "reconnecting");
      return;
    }
    if (frame.type !== "conversation") return;
    const subscriber = this.subscribers.get(frame.key);
    if (!subscriber) return;
    const last = subscriber.subscription.lastEventId;
    // A resumed subscription never repeats what its tab already processed.
    if (frame.event.type !== "snapshot" && last !== undefined && frame.id <= last) return;
    subscriber.subscription.lastEventId = frame.id;
    if (subscriber.state !== "open") this.setState(frame.key, "open");
    subscriber.onEvent(frame.event);
  }

  private setState(key: string, state: ConnectionState): void {
    const subscriber = this.subscribers.get(key);
    if (!subscriber || subscriber.state === state) return;
    subscriber.state = state;
    subscriber.onState(state);
  }
}

let hub: LiveHub | null = null;

export function liveHub(): LiveHub {
  hub ??= new LiveHub();
  return hub;
}
