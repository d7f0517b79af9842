import { fork } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { verdict, type FigureResult } from "./support/figure";

/**
 * `npm run bench`: each figure in its own process (so RSS and event-loop figures start
 * clean), one after another, then a summary table. Every figure is a ratio measured side by
 * side in the same run. Env: BENCH_SCALE (0–1] shrinks the reindex and scale fixtures for quick runs
 * (BENCH_SCALE_CONVERSATIONS sets the scale figure's count; it needs `npm run build` first);
 * BENCH_PROFILE=1 prints profiles even when goals are met, =0 turns reindex sampling off;
 * BENCH_FIGURES=a.ts,b.ts runs only those figures; BENCH_MODEL_ROUNDS sets model-stream's rounds.
 */
const ALL_FIGURES = [
  "append-rate.ts",
  "reindex.ts",
  "sse-throughput.ts",
  "sse-fanout.ts",
  "concurrent-turns.ts",
  "checkpoint.ts",
  "soak.ts",
  "scale.ts",
  "model-stream.ts",
  "start-memory.ts",
  "long-conversation.ts",
  "sandbox-cost.ts",
  "machine-link.ts",
  "machine-conversations.ts",
  "postgres-append-rate.ts",
  "cluster-nodes.ts",
  "cluster-throughput.ts",
];

/** BENCH_FIGURES: a comma-separated subset, by file name (the `.ts` may be left off). */
function selectedFigures(): string[] {
  const wanted = process.env.BENCH_FIGURES?.split(",").map((name) => name.trim()).filter(Boolean);
  if (!wanted || wanted.length === 0) return ALL_FIGURES;
  const files = wanted.map((name) => (name.endsWith(".ts") ? name : `${name}.ts`));
  const unknown = files.filter((file) => !ALL_FIGURES.includes(file));
  if (unknown.length > 0) throw new Error(`BENCH_FIGURES names no figure ${unknown.join(", ")}; figures: ${ALL_FIGURES.join(", ")}`);
  return ALL_FIGURES.filter((file) => files.includes(file));
}
/** A figure that hangs must not hang the bench. */
const FIGURE_TIMEOUT_MS = 10 * 60_000;

function runFigure(file: string): Promise<FigureResult> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(import.meta.dirname, file), [], { execArgv: ["--import", "tsx"], stdio: "inherit" });
    let result: FigureResult | null = null;
    const timer = setTimeout(() => child.kill("SIGKILL"), FIGURE_TIMEOUT_MS);
    child.on("message", (message: { result: FigureResult }) => (result = message.result));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new Error(`${file} ended without a result (${signal ?? `exit code ${code}`})`));
    });
  });
}

/** How much of one core a busy loop gets right now: below ~90 % the machine is shared and wall times stretch. */
function cpuShare(): number {
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (performance.now() - started < 300);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

function machine(): string {
  const load = os.loadavg().map((value) => value.toFixed(1)).join(" ");
  return `load average ${load} on ${os.availableParallelism()} cores; a busy loop gets ${(cpuShare() * 100).toFixed(0)} % of a core`;
}

function table(results: FigureResult[], failures: string[]): string {
  const rows = results.flatMap((result) =>
    result.checks.map((check) => [String(result.figure), check.metric, check.value, check.goal, verdict(check.pass)]),
  );
  const header = ["#", "figure", "measured", "goal", ""];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line), ...failures].join("\n");
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`Atrium bench — node ${process.version}, ${os.cpus()[0]?.model ?? "unknown CPU"}`);
  console.log(`at start: ${machine()}`);
  if (process.env.BENCH_SCALE) console.log(`BENCH_SCALE=${process.env.BENCH_SCALE}: the reindex fixture is scaled down`);
  const results: FigureResult[] = [];
  const failures: string[] = [];
  let figures: string[];
  try {
    figures = selectedFigures();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  for (const file of figures) {
    try {
      results.push(await runFigure(file));
    } catch (error) {
      failures.push(`${file}: FAILED — ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`\n== Summary — node ${process.version} (${((performance.now() - started) / 1000).toFixed(0)} s; at end: ${machine()})\n`);
  console.log(table(results, failures));
  process.exitCode = failures.length > 0 ? 1 : 0;
}

await main();
