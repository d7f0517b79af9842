/**
 * The shared clock of the model-stream figure. Every word the fake model sends carries its
 * tag, its index and the moment it was written (`<tag>:<index>@<microseconds>`, CLOCK_MONOTONIC,
 * the same in every process on the machine), so a client anywhere can tell how long the word
 * took to reach it, however the server between splits or merges the text.
 */

/** Monotonic microseconds (process.hrtime), comparable across processes on one machine. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export function stampWord(tag: string, index: number, sentMicros: number): string {
  return `${tag}:${index}@${sentMicros}`;
}

export interface Stamp {
  tag: string;
  index: number;
  sentMicros: number;
}

const STAMP = /([A-Za-z0-9-]+):(\d+)@(\d+)/g;

/** Every whole stamp in a piece of streamed text, in order. */
export function parseStamps(text: string): Stamp[] {
  const stamps: Stamp[] = [];
  for (const match of text.matchAll(STAMP)) {
    stamps.push({ tag: match[1], index: Number(match[2]), sentMicros: Number(match[3]) });
  }
  return stamps;
}

/**
 * Latencies in ms of the stamps in one received delta, grouped by tag. A stamp cut in two by a
 * delta boundary would be lost, so the caller keeps the unfinished tail (see `StampReader`).
 */
export function latenciesOf(stamps: readonly Stamp[], receivedMicros: number): Map<string, number[]> {
  const byTag = new Map<string, number[]>();
  for (const stamp of stamps) {
    const list = byTag.get(stamp.tag) ?? [];
    list.push((receivedMicros - stamp.sentMicros) / 1000);
    byTag.set(stamp.tag, list);
  }
  return byTag;
}

/**
 * Reads one text stream delta by delta. Words are separated by spaces; text after the last
 * space may be a word still being written, so it waits for the next delta (or `finish`).
 * Each complete stamp is timed at the delta that completed it.
 */
export class StampReader {
  private tail = "";
  readonly latencies = new Map<string, number[]>();
  /** Every timed stamp in arrival order, with its index and send time (for a per-word breakdown). */
  readonly samples: Array<{ index: number; sentMicros: number; ms: number }> = [];
  words = 0;

  push(delta: string, receivedMicros: number): void {
    const text = this.tail + delta;
    const cut = text.lastIndexOf(" ");
    this.tail = cut === -1 ? text : text.slice(cut + 1);
    if (cut !== -1) this.record(text.slice(0, cut), receivedMicros);
  }

  /** The stream ended: its last word is complete. */
  finish(receivedMicros: number): void {
    this.record(this.tail, receivedMicros);
    this.tail = "";
  }

  private record(text: string, receivedMicros: number): void {
    const stamps = parseStamps(text);
    for (const stamp of stamps) this.samples.push({ index: stamp.index, sentMicros: stamp.sentMicros, ms: (receivedMicros - stamp.sentMicros) / 1000 });
    for (const [tag, values] of latenciesOf(stamps, receivedMicros)) {
      const list = this.latencies.get(tag) ?? [];
      for (const value of values) list.push(value);
      this.latencies.set(tag, list);
      this.words += values.length;
    }
  }
}

/** What the fake model is asked for: `[bench <tag> <words> <delayMs>]` in the last user message. */
export interface BenchRequest {
  tag: string;
  words: number;
  delayMs: number;
}

export const DEFAULT_WORDS = 200;
export const DEFAULT_DELAY_MS = 5;

export function benchPrompt(tag: string, words = DEFAULT_WORDS, delayMs = DEFAULT_DELAY_MS): string {
  return `[bench ${tag} ${words} ${delayMs}]`;
}

export function parseBenchPrompt(text: string): BenchRequest | null {
  const match = /\[bench ([A-Za-z0-9-]+)(?: (\d+))?(?: (\d+))?\]/.exec(text);
  if (!match) return null;
  return {
    tag: match[1],
    words: match[2] === undefined ? DEFAULT_WORDS : Number(match[2]),
    delayMs: match[3] === undefined ? DEFAULT_DELAY_MS : Number(match[3]),
  };
}
