import { StampReader } from "../model/stamps";

/**
 * What the peers harness asks of each system: start it on a data directory of its own, talk
 * to it through its own API as its own clients do, and report every text delta and turn end
 * it streams to the `Sink` the moment the harness has parsed it (monotonic microseconds).
 */
export interface Sink {
  delta(conversationId: string, text: string, receivedMicros: number): void;
  ended(conversationId: string, receivedMicros: number, error: string | null): void;
}

export interface Driver {
  /** "opencode 1.18.33", "Atrium (Node 20.20.2)", … */
  readonly label: string;
  /** The server process; its whole tree is measured. Valid after start. */
  readonly pid: number;
  /**
   * Spawns the system on `home` (the same directory again after a kill) and resolves once it is
   * ready, answering spawn → ready in ms: its health answering, or for Codex's stdio app-server
   * the initialize response.
   */
  start(home: string): Promise<number>;
  /** What a client does first once the system is ready (a list request, opening its event stream). */
  settle(): Promise<void>;
  /** A new conversation whose first message is `text`; resolves once that first turn has ended. */
  create(text: string): Promise<string>;
  /** Sends a message; resolves when the system has accepted it (its deltas then reach the Sink). */
  send(conversationId: string, text: string): Promise<void>;
  /** The conversation as the system has stored it, read back through its own API, as text. */
  history(conversationId: string): Promise<string>;
  /** SIGKILL to the whole process tree, then waits for the server to be gone. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

interface Expected {
  reader: StampReader;
  ended: boolean;
}

/**
 * The Sink the harness hands its drivers: per conversation it times each stamped word as it
 * arrives (StampReader, the model-stream figure's reader) and resolves a batch of turns once
 * each has ended with all its words.
 */
export class Tracker implements Sink {
  private expected = new Map<string, Expected>();
  private settle: { resolve: () => void; reject: (error: Error) => void; words: number } | null = null;
  /** Fires at each word count a conversation reaches (the kill test waits for its 500th). */
  onWords: ((conversationId: string, words: number) => void) | null = null;

  /** Arms for one turn in each conversation; the promise resolves when every one has ended with `words` words. */
  expect(conversationIds: string[], words: number): Promise<void> {
    this.expected = new Map(conversationIds.map((id) => [id, { reader: new StampReader(), ended: false }]));
    const done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject, words }));
    done.catch(() => {});
    return done;
  }

  latencies(): number[] {
    return [...this.expected.values()].flatMap(({ reader }) => [...reader.latencies.values()].flat());
  }

  /** Every timed word of the armed turns, in arrival order per conversation. */
  samples(): Array<{ index: number; sentMicros: number; ms: number }> {
    return [...this.expected.values()].flatMap(({ reader }) => reader.samples);
  }

  words(): number {
    return [...this.expected.values()].reduce((sum, { reader }) => sum + reader.words, 0);
  }

  fail(error: Error): void {
    this.settle?.reject(error);
    this.settle = null;
  }

  delta(conversationId: string, text: string, receivedMicros: number): void {
    const entry = this.expected.get(conversationId);
    if (!entry || entry.ended) return;
    const before = entry.reader.words;
    entry.reader.push(text, receivedMicros);
    if (this.onWords && entry.reader.words !== before) this.onWords(conversationId, entry.reader.words);
  }

  ended(conversationId: string, receivedMicros: number, error: string | null): void {
    const entry = this.expected.get(conversationId);
    if (!entry || entry.ended || !this.settle) return;
    if (error) return this.fail(new Error(`conversation ${conversationId}: turn failed: ${error}`));
    entry.reader.finish(receivedMicros);
    entry.ended = true;
    if (entry.reader.words < this.settle.words) {
      return this.fail(new Error(`conversation ${conversationId}: turn ended after ${entry.reader.words} of ${this.settle.words} words`));
    }
    if ([...this.expected.values()].every((each) => each.ended)) {
      this.settle.resolve();
      this.settle = null;
    }
  }
}

/** Distinct stamped words of `tag` in a stored conversation's text: what survived. */
export function wordsKept(history: string, tag: string): number {
  const indices = new Set<string>();
  for (const match of history.matchAll(new RegExp(`${tag}:(\\d+)@`, "g"))) indices.add(match[1]);
  return indices.size;
}
