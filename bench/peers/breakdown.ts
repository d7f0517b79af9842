import fs from "node:fs";
import path from "node:path";
import { percentile } from "../support/stats";
import type { PeerFigures, WordSample } from "./peer-round";

/**
 * What the turns-one-at-a-time p99 is made of: latency by word index (the first word of a turn
 * waits for its assistant item; the next few may meet cold code), by turn, the words over 1 ms,
 * and the slowest words with the garbage collections (of any process that ran with
 * ./event-log.cjs) that overlap their time in flight.
 */
export interface GcEvent {
  role: string;
  startMicros: number;
  ms: number;
  kind: string;
}

export function readGcEvents(directory: string): GcEvent[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory).filter((file) => file.endsWith(".jsonl")).flatMap((file) => {
    const role = file.replace(/-\d+\.jsonl$/, "");
    return fs
      .readFileSync(path.join(directory, file), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => ({ role, ...(JSON.parse(line) as Omit<GcEvent, "role">) }));
  });
}

const f = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "–");

function spread(rounds: number[]): string {
  if (rounds.length < 2) return f(rounds[0]);
  const sorted = [...rounds].sort((a, b) => a - b);
  return `${f(sorted[Math.floor((sorted.length - 1) / 2)])} (${f(sorted[0])}–${f(sorted.at(-1)!)})`;
}

function line(name: string, rounds: WordSample[][], pick: (sample: WordSample) => boolean): string {
  const picked = rounds.map((samples) => samples.filter(pick).map((sample) => sample.ms));
  const count = picked.reduce((sum, list) => sum + list.length, 0);
  const over = picked.reduce((sum, list) => sum + list.filter((ms) => ms > 1).length, 0);
  return `  ${name.padEnd(22)} n=${String(count).padStart(4)}  p50 ${spread(picked.map((list) => percentile(list, 0.5)))}  p99 ${spread(picked.map((list) => percentile(list, 0.99)))}  max ${spread(picked.map((list) => Math.max(...list)))}  >1ms ${over}`;
}

function overlapping(sample: WordSample, events: GcEvent[]): string {
  const from = sample.sentMicros;
  const to = sample.sentMicros + sample.ms * 1000;
  const hits = events.filter((event) => event.startMicros < to && event.startMicros + event.ms * 1000 > from);
  return hits.map((event) => `${event.role} ${event.kind} ${event.ms.toFixed(2)}ms@+${((event.startMicros - from) / 1000).toFixed(2)}`).join(", ");
}

export function breakdown(label: string, rounds: PeerFigures[], events: GcEvent[]): string {
  const samples = rounds.map((round) => round.sequentialSamples);
  const lines = [`${label}: turns one at a time, by word (each cell: median over rounds (range))`];
  lines.push(line("all", samples, () => true));
  lines.push(line("word 0", samples, (sample) => sample.index === 0));
  lines.push(line("words 1–9", samples, (sample) => sample.index >= 1 && sample.index <= 9));
  lines.push(line("words 10+", samples, (sample) => sample.index >= 10));
  lines.push(line("all but word 0", samples, (sample) => sample.index > 0));
  const turns = new Set(samples.flat().map((sample) => sample.turn));
  for (const turn of [...turns].sort((a, b) => a - b)) lines.push(line(`turn ${turn + 1}`, samples, (sample) => sample.turn === turn));
  const slowest = samples
    .flatMap((list, round) => list.map((sample) => ({ round, sample })))
    .sort((a, b) => b.sample.ms - a.sample.ms)
    .slice(0, 15);
  lines.push("  slowest: round/turn/word ms [overlapping GCs: process kind length @start after the word was sent]");
  for (const { round, sample } of slowest) {
    lines.push(`    r${round + 1} t${sample.turn + 1} w${String(sample.index).padEnd(3)} ${f(sample.ms)}  ${overlapping(sample, events)}`);
  }
  return lines.join("\n");
}
