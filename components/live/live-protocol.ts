import type { StreamFrame } from "@/lib/api/stream-schemas";

/** One conversation subscription as a tab asks for it; `lastEventId` is what that tab has processed. */
export interface LiveSubscription {
  key: string;
  conversationId: string;
  session?: string;
  lastEventId?: number;
}

/** Messages between the tabs of one origin on the BroadcastChannel. */
export type TabMessage =
  /** A tab's subscriptions, for the leader to carry (sent again whenever a new leader asks). */
  | { kind: "subscribe"; subscriptions: LiveSubscription[] }
  | { kind: "unsubscribe"; keys: string[] }
  /** From a new leader: every tab sends its subscriptions again, with the last ids it has seen. */
  | { kind: "leader" }
  /** From the leader: a stream frame, for whichever tab holds its key (list frames: every tab). */
  | { kind: "frame"; frame: StreamFrame }
  /** From the leader: the stream (re)opened, so list views refetch what they may have missed. */
  | { kind: "opened" }
  /** From the leader: these keys are live on the stream. */
  | { kind: "subscribed"; keys: string[] }
  /** From the leader: the stream dropped; every subscription waits for the reconnect. */
  | { kind: "disconnected" };

export const CHANNEL_NAME = "atrium-live";
export const LOCK_NAME = "atrium-live-stream";
