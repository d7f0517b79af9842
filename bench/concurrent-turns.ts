import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseConfig } from "../lib/config/config";
import { Runtime } from "../lib/engine/runtime";
import { Store } from "../lib/store/store";
import { profileCpu, summarizeProfile } from "./support/cpu-profile";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMiB, formatMs, formatNumber, formatRatio } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";
import { turnEnded } from "./sse/rounds";

/**
 * Figure 5 (issue 3, item 12): 200 conversations created at once, each an offline-model turn
 * streaming 50 words with 5 ms between deltas, on real files. Event-loop lag p99 (goal ≤ 20 ms),
 * peak RSS and total time, beside a floor run in the same process: 200 concurrent loops with
 * the same 50 × 5 ms timer pattern and no engine.
 */
const TURNS = 200;
const WORDS = 50;
const DELAY_MS = 5;
const LAG_GOAL_MS = 20;
const IDLE_MS = 500;
const PROFILED_TURNS = 50;
const PROFILE_PATH = path.join(os.tmpdir(), "atrium-bench-turns.cpuprofile");

interface LoopStats {
  p50: number;
  p99: number;
  max: number;
}

/** Runs `work` under an event-loop delay histogram (1 ms resolution) and an RSS sampler. */
async function observe<T>(
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; cpuMs: number; lag: LoopStats; peakRss: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    const result = await work();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    histogram.disable();
    const toMs = (nanoseconds: number) => nanoseconds / 1e6;
    return {
      result,
      ms,
      cpuMs: (used.user + used.system) / 1000,
      lag: { p50: toMs(histogram.percentile(50)), p99: toMs(histogram.percentile(99)), max: toMs(histogram.max) },
      // maxRSS is the kernel's high-water mark: the sampler alone misses peaks while the loop is blocked.
      peakRss: Math.max(peakRss, process.resourceUsage().maxRSS * 1024),
    };
  } finally {
    clearInterval(sampler);
  }
}

async function concurrentTurns(runtime: Runtime, turns: number): Promise<{ completed: number; deltas: number }> {
  let deltas = 0;
  const started = await Promise.all(
    Array.from({ length: turns }, (_, index) =>
      runtime.createConversation({ text: `turn ${index} [[stream:${WORDS}]] [[delay:${DELAY_MS}]]` }).then((created) => {
        const unsubscribe = runtime.bus.subscribe(created.conversation.id, ({ event }) => {
          if (event.type === "item.delta") deltas += 1;
        });
        return turnEnded(runtime, created.conversation.id, created.turn.id).then(() => {
          unsubscribe();
          return runtime.getTurn(created.turn.id);
        });
      }),
    ),
  );
  return { completed: started.filter((turn) => turn.status === "completed").length, deltas };
}

/** The same timer pattern with nothing behind it: what 200 × 50 × 5 ms costs on this machine. */
async function timerFloor(): Promise<void> {
  await Promise.all(
    Array.from({ length: TURNS }, async () => {
      for (let word = 0; word < WORDS; word += 1) await sleep(DELAY_MS);
    }),
  );
}

export const measure: Measure = () =>
  withTempDirectory("atrium-bench-turns-", async (home) => {
    const runtime = new Runtime({
      store: new Store(home, { log: () => {} }),
      config: parseConfig({ defaultCwd: home }),
      log: () => {},
    });
    await runtime.start();
    try {
      const idle = await observe(() => sleep(IDLE_MS));
      const floor = await observe(timerFloor);
      const rssBefore = process.memoryUsage.rss();
      const app = await observe(() => concurrentTurns(runtime, TURNS));
      if (app.result.completed !== TURNS) throw new Error(`${app.result.completed} of ${TURNS} turns completed`);
      const pass = app.lag.p99 <= LAG_GOAL_MS;
      const evidence: string[] = [];
      if (!pass || process.env.BENCH_PROFILE === "1") {
        // A quarter of the load: the costs are per turn and per delta, and a full profiled rerun would not fit the budget.
        const { profile } = await profileCpu(() => concurrentTurns(runtime, PROFILED_TURNS), PROFILE_PATH);
        evidence.push(`CPU profile of ${PROFILED_TURNS} more concurrent turns (saved to ${PROFILE_PATH}):`);
        evidence.push(...summarizeProfile(profile, 12));
      }
      const lag = (stats: LoopStats) => `p50 ${formatMs(stats.p50)}, p99 ${formatMs(stats.p99)}, max ${formatMs(stats.max)}`;
      return {
        figure: 5,
        title: `${TURNS} concurrent offline-model turns ([[stream:${WORDS}]] [[delay:${DELAY_MS}]])`,
        checks: [
          { metric: "event-loop lag p99", value: formatMs(app.lag.p99), goal: `≤ ${LAG_GOAL_MS} ms`, pass },
          {
            metric: "total time, app / timer floor",
            value: formatRatio(app.ms / floor.ms),
            goal: "none (context)",
            pass: null,
          },
          { metric: "peak RSS", value: formatMiB(app.peakRss), goal: "none (reported)", pass: null },
        ],
        details: [
          `app: ${formatNumber(app.ms)} ms for ${TURNS} turns, ${formatNumber(app.result.deltas)} deltas; loop lag ${lag(app.lag)}`,
          `  CPU ${formatNumber(app.cpuMs)} ms = ${formatMs(app.cpuMs / TURNS)} per turn, against ${TURNS}×${WORDS}×${DELAY_MS} ms of timers that fit in ${formatNumber(WORDS * DELAY_MS)} ms`,
          `timer floor (${TURNS} loops of ${WORDS} × ${DELAY_MS} ms sleeps): ${formatNumber(floor.ms)} ms; loop lag ${lag(floor.lag)}`,
          `idle ${IDLE_MS} ms before: loop lag ${lag(idle.lag)}`,
          `RSS ${formatMiB(rssBefore)} before the turns, peak ${formatMiB(app.peakRss)} during; files in ${home}`,
        ],
        evidence,
      };
    } finally {
      await runtime.stop();
    }
  });

runFigureIfMain(import.meta.url, measure);
