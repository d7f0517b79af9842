import { pathToFileURL } from "node:url";

/** One goal of a figure, as the summary table prints it. `pass` is null when no goal was set. */
export interface Check {
  metric: string;
  value: string;
  goal: string;
  pass: boolean | null;
}

export interface FigureResult {
  figure: number;
  title: string;
  checks: Check[];
  /** Raw numbers behind the checks, one line each. */
  details: string[];
  /** Profile lines or other evidence printed when a goal is missed. */
  evidence: string[];
  seconds: number;
}

export type Measure = () => Promise<Omit<FigureResult, "seconds">>;

export function verdict(pass: boolean | null): string {
  if (pass === null) return "—";
  return pass ? "PASS" : "MISS";
}

export function printFigure(result: FigureResult): void {
  const lines = [`\n== Figure ${result.figure}: ${result.title} (${result.seconds.toFixed(1)} s)`];
  for (const check of result.checks) {
    lines.push(`   ${verdict(check.pass).padEnd(4)}  ${check.metric}: ${check.value}   goal ${check.goal}`);
  }
  for (const detail of result.details) lines.push(`         ${detail}`);
  if (result.evidence.length > 0) {
    lines.push("   evidence:");
    for (const line of result.evidence) lines.push(`         ${line}`);
  }
  console.log(lines.join("\n"));
}

/**
 * Runs a figure when its file is the process entry: prints it, and hands the result to
 * bench/index.ts over IPC when forked from there. Each figure gets its own process so
 * its RSS and event-loop figures are not polluted by the previous one.
 */
export function runFigureIfMain(moduleUrl: string, measure: Measure): void {
  if (!process.argv[1] || pathToFileURL(process.argv[1]).href !== moduleUrl) return;
  const started = performance.now();
  measure().then(
    (partial) => {
      const result: FigureResult = { ...partial, seconds: (performance.now() - started) / 1000 };
      printFigure(result);
      if (process.send) process.send({ result }, () => process.exit(0));
      else process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
