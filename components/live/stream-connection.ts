import type { StreamFrame } from "@/lib/api/stream-schemas";
import { apiFetch } from "@/components/shared/api-client";
import type { LiveSubscription } from "./live-protocol";

const FRAME_TYPES = ["stream.opened", "list", "conversation", "subscription.failed"] as const;
const RESTART_DELAY_MS = 3000;
/** A subscription the server could not carry for a while (its node gone, its conversation moving) is asked for again after 1, 2, 4… s, at most this. */
const RESUBSCRIBE_MAX_MS = 10_000;
/** Refusals that may pass: the conversation's node is down or its lease moving (DESIGN §10c). */
const PASSING_REFUSALS = new Set(["node_unavailable"]);

export interface StreamCallbacks {
  frame(frame: StreamFrame): void;
  opened(): void;
  subscribed(keys: string[]): void;
  disconnected(): void;
}

/**
 * The leader's one connection: GET /api/stream plus POSTs that change its set. It remembers
 * every subscription with the last id it carried, so a reconnect (a new stream id) resumes
 * each one where it stopped.
 */
export class StreamConnection {
  private readonly subscriptions = new Map<string, LiveSubscription>();
  private source: EventSource | null = null;
  private streamId: string | null = null;
  private pendingAdd = new Set<string>();
  private pendingRemove = new Set<string>();
  private flushing = false;
  /** Keys refused for a passing reason: how many times in a row, and the timer asking again. */
  private readonly refused = new Map<string, { count: number; timer: number }>();

  constructor(private readonly callbacks: StreamCallbacks) {}

  start(): void {
    const source = new EventSource("/api/stream");
    this.source = source;
    const onMessage = (message: MessageEvent<string>) => {
      let frame: StreamFrame;
      try {
        frame = JSON.parse(message.data) as StreamFrame;
      } catch {
        return;
      }
      this.receive(frame);
    };
    for (const type of FRAME_TYPES) source.addEventListener(type, onMessage as EventListener);
    source.onerror = () => {
      // EventSource retries network errors by itself but gives up for good on a non-200 answer
      // (a proxy's 502, a 401): then a fresh one is opened a little later.
      if (source.readyState === EventSource.CLOSED && this.source === source) {
        window.setTimeout(() => {
          if (this.source === source) this.start();
        }, RESTART_DELAY_MS);
      }
      if (this.streamId === null) return;
      this.streamId = null;
      this.callbacks.disconnected();
    };
  }

  stop(): void {
    this.source?.close();
    this.source = null;
    this.streamId = null;
  }

  add(subscriptions: LiveSubscription[]): void {
    for (const subscription of subscriptions) {
      const known = this.subscriptions.get(subscription.key);
      // A tab re-sending a key it already has keeps the later of the two positions.
      const lastEventId = Math.max(subscription.lastEventId ?? -1, known?.lastEventId ?? -1);
      this.subscriptions.set(subscription.key, { ...subscription, lastEventId: lastEventId < 0 ? undefined : lastEventId });
      this.pendingRemove.delete(subscription.key);
      this.pendingAdd.add(subscription.key);
    }
    void this.flush();
  }

  remove(keys: string[]): void {
    for (const key of keys) {
      this.clearRefusal(key);
      if (!this.subscriptions.delete(key)) continue;
      this.pendingAdd.delete(key);
      this.pendingRemove.add(key);
    }
    void this.flush();
  }

  private receive(frame: StreamFrame): void {
    if (frame.type === "stream.opened") {
      this.streamId = frame.streamId;
      // Everything this leader carries goes onto the new stream, each from its last id.
      this.pendingRemove.clear();
      for (const key of [...this.refused.keys()]) this.clearRefusal(key);
      for (const key of this.subscriptions.keys()) this.pendingAdd.add(key);
      this.callbacks.opened();
      void this.flush();
      return;
    }
    if (frame.type === "conversation") {
      const subscription = this.subscriptions.get(frame.key);
      if (subscription) subscription.lastEventId = frame.id;
      this.clearRefusal(frame.key);
    }
    if (frame.type === "subscription.failed" && PASSING_REFUSALS.has(frame.error.code)) this.subscribeAgainLater(frame.key);
    this.callbacks.frame(frame);
  }

  /**
   * The server said it cannot carry a subscription now (the node holding its conversation died
   * or handed it on): it is asked for again from its last id, backing off, until it is carried
   * or the tab drops it. A fresh stream (stream.opened) adds it again anyway.
   */
  private subscribeAgainLater(key: string): void {
    if (!this.subscriptions.has(key)) return;
    const previous = this.refused.get(key);
    if (previous) window.clearTimeout(previous.timer);
    const count = (previous?.count ?? 0) + 1;
    const delay = Math.min(1000 * 2 ** (count - 1), RESUBSCRIBE_MAX_MS);
    const timer = window.setTimeout(() => {
      if (!this.subscriptions.has(key) || this.streamId === null) return;
      this.pendingRemove.delete(key);
      this.pendingAdd.add(key);
      void this.flush();
    }, delay);
    this.refused.set(key, { count, timer });
  }

  private clearRefusal(key: string): void {
    const refusal = this.refused.get(key);
    if (!refusal) return;
    window.clearTimeout(refusal.timer);
    this.refused.delete(key);
  }

  /** One POST at a time; changes made meanwhile go out together in the next. */
  private async flush(): Promise<void> {
    if (this.flushing || this.streamId === null) return;
    if (this.pendingAdd.size === 0 && this.pendingRemove.size === 0) return;
    this.flushing = true;
    const streamId = this.streamId;
    const add = [...this.pendingAdd].flatMap((key) => {
      const subscription = this.subscriptions.get(key);
      return subscription ? [subscription] : [];
    });
    const remove = [...this.pendingRemove];
    this.pendingAdd.clear();
    this.pendingRemove.clear();
    try {
      await apiFetch(`/api/stream/${streamId}/subscriptions`, { method: "POST", body: { add, remove } });
      if (this.streamId === streamId) this.callbacks.subscribed(add.map((subscription) => subscription.key));
    } catch {
      // The stream is gone or the server is down: the reconnect's stream.opened adds everything
      // again. If this stream still stands, try the same change once more shortly.
      if (this.streamId === streamId) {
        for (const subscription of add) if (this.subscriptions.has(subscription.key)) this.pendingAdd.add(subscription.key);
        for (const key of remove) this.pendingRemove.add(key);
        setTimeout(() => void this.flush(), 1000);
      }
      this.flushing = false;
      return;
    } finally {
      this.flushing = false;
    }
    if (this.streamId !== null) void this.flush();
  }
}
