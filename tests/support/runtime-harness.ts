import { parseConfig } from "@/lib/config/config";
import type { Turn } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";
import { Runtime } from "@/lib/engine/runtime";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "./temp-home";

export interface Harness {
  home: string;
  runtime: Runtime;
  /** Resolves with the first event of the conversation that matches, published after this call. */
  nextEvent<T extends ConversationEvent["type"]>(
    conversationId: string,
    type: T,
    where?: (event: Extract<ConversationEvent, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<ConversationEvent, { type: T }>>;
  turnEnded(conversationId: string, turnId: string, timeoutMs?: number): Promise<Turn>;
  restart(): Promise<Runtime>;
  close(): Promise<void>;
}

export const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20, maxRetries: 10 };

/** A real Runtime on real files in a temp ATRIUM_HOME, with fast retries. */
export async function startHarness(configJson: Record<string, unknown> = {}, existingHome?: string): Promise<Harness> {
  const temp = existingHome ? { home: existingHome, cleanup: () => {} } : makeTempHome();
  const config = parseConfig({ retry: FAST_RETRY, defaultCwd: temp.home, ...configJson });
  const make = async () => {
    const runtime = new Runtime({ store: new Store(temp.home, { log: () => {} }), config, log: () => {} });
    await runtime.start();
    return runtime;
  };
  let runtime = await make();
  const harness: Harness = {
    home: temp.home,
    get runtime() {
      return runtime;
    },
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
    async turnEnded(conversationId, turnId, timeoutMs = 10_000) {
      const current = runtime.getTurn(turnId);
      if (current.endedAt) return current;
      const event = await harness.nextEvent(conversationId, "turn.ended", (candidate) => candidate.turn.id === turnId, timeoutMs);
      return event.turn;
    },
    async restart() {
      await runtime.stop();
      runtime = await make();
      return runtime;
    },
    async close() {
      await runtime.stop();
      temp.cleanup();
    },
  } as Harness;
  return harness;
}
