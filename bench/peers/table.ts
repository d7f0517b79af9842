import { median, percentile } from "../support/stats";
import type { PeerFigures } from "./peer-round";

/**
 * The issue 25 table from each system's rounds: every cell is the median over rounds, with
 * the range over rounds after it when there were several ("0.63 (0.55–0.87)").
 */
const MiB = 1024 * 1024;

interface Line {
  name: string;
  cells: (rounds: PeerFigures[]) => string;
}

function over(rounds: PeerFigures[], value: (round: PeerFigures) => number, format: (value: number) => string): string {
  const each = rounds.map(value);
  const middle = format(median(each));
  if (each.length < 2) return middle;
  return `${middle} (${format(Math.min(...each))}–${format(Math.max(...each))})`;
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const whole = (value: number) => value.toFixed(0);
const mib = (value: number) => (value / MiB).toFixed(0);

const LINES: Line[] = [
  { name: "added delta latency, turns one at a time, p50 (ms)", cells: (r) => over(r, (x) => percentile(x.sequential, 0.5), ms) },
  { name: "added delta latency, turns one at a time, p99 (ms)", cells: (r) => over(r, (x) => percentile(x.sequential, 0.99), ms) },
  { name: "20 concurrent turns: delta latency p50 (ms)", cells: (r) => over(r, (x) => percentile(x.concurrent, 0.5), ms) },
  { name: "20 concurrent turns: delta latency p99 (ms)", cells: (r) => over(r, (x) => percentile(x.concurrent, 0.99), ms) },
  { name: "20 concurrent: submit → model request p50 (ms)", cells: (r) => over(r, (x) => percentile(x.submitToRequestMs, 0.5), ms) },
  { name: "20 concurrent: server CPU per streamed delta (µs)", cells: (r) => over(r, (x) => (x.concurrentCpuMs * 1000) / x.concurrentWords, whole) },
  { name: "turns one at a time: server CPU per streamed delta (µs)", cells: (r) => over(r, (x) => (x.sequentialCpuMs * 1000) / x.sequentialWords, whole) },
  { name: "idle after the warm-up: server CPU (ms per s)", cells: (r) => over(r, (x) => x.idleCpuPerSecond, whole) },
  { name: "ready: spawn → health (Codex: initialize) (ms)", cells: (r) => over(r, (x) => x.readyMs, whole) },
  { name: "RSS fresh idle (MiB)", cells: (r) => over(r, (x) => x.idleRss, mib) },
  { name: "RSS with 20 warm conversations (MiB)", cells: (r) => over(r, (x) => x.warmRss, mib) },
  { name: "RSS peak under 20 turns (MiB)", cells: (r) => over(r, (x) => x.peakRss, mib) },
  { name: "the server process alone: RSS warm / peak (MiB)", cells: (r) => `${over(r, (x) => x.warmRssMain, mib)} / ${over(r, (x) => x.peakRssMain, mib)}` },
  { name: "kill -9 after 500 streamed words: words kept", cells: (r) => over(r, (x) => x.kept, whole) },
];

/** A Markdown table: one row per figure, one column per system. */
export function table(systems: Array<{ label: string; rounds: PeerFigures[] }>): string {
  const header = `| figure | ${systems.map((system) => `${system.label} (${system.rounds.length} runs)`).join(" | ")} |`;
  const rule = `|---|${systems.map(() => "---").join("|")}|`;
  const rows = LINES.map((line) => `| ${line.name} | ${systems.map((system) => (system.rounds.length ? line.cells(system.rounds) : "—")).join(" | ")} |`);
  return [header, rule, ...rows].join("\n");
}
