import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseConfig } from "@/lib/config/config";
import type { Item, Turn } from "@/lib/events/entities";
import type { ConversationEvent, Delivered } from "@/lib/events/events";
import type { ClusterBoot } from "@/lib/cluster/cluster-boot";
import { Runtime } from "@/lib/engine/runtime";
import type { StorageFs } from "@/lib/store/storage-fs";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "./temp-home";
import { waitUntil } from "./wait-until";

type EventOf<T extends ConversationEvent["type"]> = Extract<ConversationEvent, { type: T }>;

export interface Harness {
  home: string;
  /** The default working directory of conversations: `<home>/workspace`. */
  cwd: string;
  runtime: Runtime;
  /** Resolves with the first event of the conversation that matches, published after this call. */
  nextEvent<T extends ConversationEvent["type"]>(
    conversationId: string,
    type: T,
    where?: (event: EventOf<T>) => boolean,
    timeoutMs?: number,
  ): Promise<EventOf<T>>;
  /**
   * Every conversation event published by this harness's runtimes (recovery at start included,
   * across restarts), in order, with the bus id it was delivered under.
   */
  log: Array<Delivered<ConversationEvent>>;
  /** The recorded events of one conversation, optionally of one type. */
  events<T extends ConversationEvent["type"]>(conversationId: string, type: T): Array<EventOf<T>>;
  /** Resolves with the first recorded event that matches, whether it was published before or after this call. */
  waitForEvent<T extends ConversationEvent["type"]>(
    conversationId: string,
    type: T,
    where?: (event: EventOf<T>) => boolean,
    timeoutMs?: number,
  ): Promise<EventOf<T>>;
  turnEnded(conversationId: string, turnId: string, timeoutMs?: number): Promise<Turn>;
  /** Root-session items, partial text included. */
  items(conversationId: string): Item[];
  /** Waits until the conversation has `count` turns and every one of them has ended; returns them oldest first. */
  settledTurns(conversationId: string, count: number, timeoutMs?: number): Promise<Turn[]>;
  /** The node's cluster side when started with a databaseUrl (DESIGN §10c), else null. */
  readonly cluster: ClusterBoot | null;
  restart(): Promise<Runtime>;
  close(): Promise<void>;
}

/** The cluster secret of a harness started as a node of a cluster. */
const HARNESS_CLUSTER_SECRET = "harness-cluster-secret-0123456789abcdef0123";

export const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20, maxRetries: 10 };

/** Config entries that make the fake OpenAI-compatible server at `baseURL` the default model, "fake". */
export function fakeModelConfig(baseURL: string): Record<string, unknown> {
  return {
    models: [{ id: "fake", provider: "openai-compatible", baseURL, model: "fake-model" }],
    defaultModel: "fake",
  };
}

/** A real Runtime on real files in a temp ATRIUM_HOME, with fast retries. */
export async function startHarness(
  configJson: Record<string, unknown> = {},
  existingHome?: string,
  options: { fs?: StorageFs; maxLoadedOwners?: number; now?: () => Date; databaseUrl?: string } = {},
): Promise<Harness> {
  const temp = existingHome ? { home: existingHome, cleanup: () => {} } : makeTempHome();
  // The tools' cwd is a folder of its own: the sandbox hides the rest of $ATRIUM_HOME from them.
  const cwd = path.join(temp.home, "workspace");
  mkdirSync(cwd, { recursive: true });
  const config = parseConfig({ retry: FAST_RETRY, defaultCwd: cwd, ...configJson });
  const log: Array<Delivered<ConversationEvent>> = [];
  const logListeners = new Set<() => void>();
  let cluster: ClusterBoot | null = null;
  const make = async () => {
    // With a databaseUrl: a node of a cluster on it (DESIGN §10c), put together as server.ts does.
    if (options.databaseUrl) {
      const { bootCluster } = await import("@/lib/cluster/cluster-boot");
      cluster = await bootCluster({ databaseUrl: options.databaseUrl, config, host: "127.0.0.1", port: 0, env: { ATRIUM_CLUSTER_SECRET: HARNESS_CLUSTER_SECRET }, log: () => {} });
    }
    const store = new Store(temp.home, { log: () => {}, fs: options.fs, now: options.now, cluster: cluster?.records, recordKey: cluster?.node.recordKey, files: cluster?.files });
    const placement = cluster ? await cluster.attach(store) : undefined;
    const runtime = new Runtime({ store, config, log: () => {}, maxLoadedOwners: options.maxLoadedOwners, placement, machineRecords: cluster?.machines });
    cluster?.onLost((conversationId) => runtime.cluster?.lost(conversationId));
    cluster?.onChanged((change) => runtime.cluster?.changed(change), () => runtime.bus.listListenerCount > 0);
    // Tapped before start() so the events of crash recovery are recorded too.
    const publish = runtime.bus.publish.bind(runtime.bus);
    runtime.bus.publish = (event) => {
      publish(event);
      log.push({ id: runtime.bus.lastId(event.conversationId), event });
      for (const listener of logListeners) listener();
    };
    await runtime.start();
    return runtime;
  };
  let runtime = await make();
  const matching = <T extends ConversationEvent["type"]>(
    conversationId: string,
    type: T,
    where: (event: EventOf<T>) => boolean,
  ) => (event: ConversationEvent): event is EventOf<T> =>
    event.conversationId === conversationId && event.type === type && where(event as EventOf<T>);

  const harness: Harness = {
    home: temp.home,
    cwd,
    get runtime() {
      return runtime;
    },
    log,
    nextEvent(conversationId, type, where = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          unsubscribe();
          reject(new Error(`no ${type} event within ${timeoutMs} ms`));
        }, timeoutMs);
        const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
          if (event.type === type && where(event as never)) {
            clearTimeout(timer);
            unsubscribe();
            resolve(event as never);
          }
        });
      });
    },
    events(conversationId, type) {
      return log.map(({ event }) => event).filter(matching(conversationId, type, () => true));
    },
    waitForEvent(conversationId, type, where = () => true, timeoutMs = 10_000) {
      const test = matching(conversationId, type, where);
      const found = () => log.find(({ event }) => test(event))?.event as EventOf<typeof type> | undefined;
      const already = found();
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const listener = () => {
          const event = found();
          if (!event) return;
          clearTimeout(timer);
          logListeners.delete(listener);
          resolve(event);
        };
        const timer = setTimeout(() => {
          logListeners.delete(listener);
          reject(new Error(`no matching ${type} event within ${timeoutMs} ms`));
        }, timeoutMs);
        logListeners.add(listener);
      });
    },
    async turnEnded(conversationId, turnId, timeoutMs = 10_000) {
      const current = runtime.getTurn(turnId);
      if (current.endedAt) return current;
      const event = await harness.nextEvent(conversationId, "turn.ended", (candidate) => candidate.turn.id === turnId, timeoutMs);
      return event.turn;
    },
    items(conversationId) {
      return runtime.listItems(conversationId, { limit: 500 }).items;
    },
    async settledTurns(conversationId, count, timeoutMs = 10_000) {
      const allEnded = () => {
        const turns = runtime.listTurns(conversationId);
        return turns.length >= count && turns.every((turn) => turn.endedAt !== null);
      };
      for (;;) {
        await waitUntil(allEnded, `${count} ended turns in conversation ${conversationId}`, timeoutMs);
        // A turn ends and the next waiting message starts inside one locked section of the actor:
        // taking the lock afterwards means that start, if any, has happened.
        await runtime.actor(conversationId).locked(() => undefined);
        if (allEnded()) return runtime.listTurns(conversationId);
      }
    },
    get cluster() {
      return cluster;
    },
    async restart() {
      await runtime.stop();
      await cluster?.stop();
      runtime = await make();
      return runtime;
    },
    async close() {
      await runtime.stop();
      await cluster?.stop();
      temp.cleanup();
    },
  } as Harness;
  return harness;
}
