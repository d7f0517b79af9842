import os from "node:os";
import path from "node:path";
import { profileCpu, summarizeProfile } from "./support/cpu-profile";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, formatNumber, formatRatio, median, percentile } from "./support/stats";
import { withSseBench } from "./sse/bench-env";
import { deltasPerSecond, echoRound, runtimeRound, type Pattern, type RoundResult } from "./sse/rounds";

/**
 * Figure 3 (issue 3, item 12): offline-model deltas through the real Runtime, the bus and the
 * app's SSE route to one client in another process, against a bare node:http SSE echo of
 * the same delta events. Throughput from a burst ([[stream:5000]], no delay); added latency
 * from a paced stream ([[delay:1]]), since in a burst a delta's latency is mostly its place
 * in the queue. Rounds rotate which side goes first. Two more sides locate a gap: the same
 * echo through lib/api/sse.ts, and the engine publishing with no client at all.
 */
const BURST: Pattern = { words: 5000, delayMs: 0, clients: 1 };
const PACED: Pattern = { words: 400, delayMs: 1, clients: 1 };
const ENGINE_ONLY: Pattern = { ...BURST, clients: 0 };
const BURST_ROUNDS = 3;
const PACED_ROUNDS = 5;
const THROUGHPUT_GOAL = 0.9;
const ADDED_P99_GOAL_MS = 2;
const PROFILE_PATH = path.join(os.tmpdir(), "atrium-bench-sse.cpuprofile");

type SideName = "app" | "bare" | "sseEcho" | "engine";

export const measure: Measure = () =>
  withSseBench(async ({ runtime, bare, sseEcho, clients }) => {
    // Warm-up rounds (not counted) also capture the delta events the echoes replay.
    const burstDeltas = (await runtimeRound(runtime, clients, BURST)).deltas;
    const pacedDeltas = (await runtimeRound(runtime, clients, PACED)).deltas;
    await echoRound(bare, clients, burstDeltas, BURST);
    await echoRound(sseEcho, clients, burstDeltas, BURST);

    const burst: Record<SideName, RoundResult[]> = { app: [], bare: [], sseEcho: [], engine: [] };
    const paced: Record<Exclude<SideName, "engine">, RoundResult[]> = { app: [], bare: [], sseEcho: [] };
    const burstSides: Array<() => Promise<unknown>> = [
      async () => burst.app.push((await runtimeRound(runtime, clients, BURST)).result),
      async () => burst.bare.push(await echoRound(bare, clients, burstDeltas, BURST)),
      async () => burst.sseEcho.push(await echoRound(sseEcho, clients, burstDeltas, BURST)),
      async () => burst.engine.push((await runtimeRound(runtime, clients, ENGINE_ONLY)).result),
    ];
    const pacedSides: Array<() => Promise<unknown>> = [
      async () => paced.app.push((await runtimeRound(runtime, clients, PACED)).result),
      async () => paced.bare.push(await echoRound(bare, clients, pacedDeltas, PACED)),
      async () => paced.sseEcho.push(await echoRound(sseEcho, clients, pacedDeltas, PACED)),
    ];
    for (const [sides, rounds] of [
      [burstSides, BURST_ROUNDS],
      [pacedSides, PACED_ROUNDS],
    ] as const) {
      for (let round = 0; round < rounds; round += 1) {
        for (let index = 0; index < sides.length; index += 1) await sides[(index + round) % sides.length]();
      }
    }

    const rate = (name: SideName) => median(burst[name].map(deltasPerSecond));
    // A stall of the shared machine delays hundreds of consecutive paced deltas, enough to own a
    // pooled p99; the median of per-round p99s lets a stalled round fall out.
    const roundP99s = (rounds: RoundResult[]) => rounds.map((result) => percentile(result.latencies, 0.99));
    const throughputRatio = rate("app") / rate("bare");
    const addedP99 = median(roundP99s(paced.app)) - median(roundP99s(paced.bare));
    const throughputPass = throughputRatio >= THROUGHPUT_GOAL;
    const latencyPass = addedP99 <= ADDED_P99_GOAL_MS;

    const evidence: string[] = [];
    if (!throughputPass || !latencyPass || process.env.BENCH_PROFILE === "1") {
      const app = await profileCpu(() => runtimeRound(runtime, clients, BURST), PROFILE_PATH);
      evidence.push(`CPU profile of the server process during one more app burst round (saved to ${PROFILE_PATH}):`);
      evidence.push(...summarizeProfile(app.profile, 10));
      const engine = await profileCpu(() => runtimeRound(runtime, clients, ENGINE_ONLY), null);
      evidence.push("CPU profile of one more engine-only burst round (no SSE client):");
      evidence.push(...summarizeProfile(engine.profile, 10));
    }

    const rates = (name: SideName) =>
      `${formatNumber(rate(name))} [${burst[name].map((result) => formatNumber(deltasPerSecond(result))).join(", ")}]`;
    const latency = (rounds: RoundResult[]) => {
      const all = rounds.flatMap((result) => result.latencies);
      return `p50 ${formatMs(percentile(all, 0.5))}, p99 ${formatMs(percentile(all, 0.99))}, max ${formatMs(Math.max(...all))}`;
    };
    const p99s = (rounds: RoundResult[]) =>
      `p99 median ${formatMs(median(roundP99s(rounds)))} [${roundP99s(rounds).map((value) => value.toFixed(2)).join(", ")}]; pooled ${latency(rounds)}`;
    return {
      figure: 3,
      title: "model delta → SSE client, one client",
      checks: [
        { metric: "throughput, app / bare echo", value: formatRatio(throughputRatio), goal: `≥ ${THROUGHPUT_GOAL}×`, pass: throughputPass },
        {
          metric: "added p99 latency, paced deltas (median of rounds)",
          value: `${addedP99 >= 0 ? "+" : "−"}${formatMs(Math.abs(addedP99))}`,
          goal: `≤ +${ADDED_P99_GOAL_MS} ms`,
          pass: latencyPass,
        },
      ],
      details: [
        `burst of ${formatNumber(burstDeltas.length)} deltas, deltas/s, median [${BURST_ROUNDS} rounds]:`,
        `  app (offline model → Runtime → bus → events route → node:http): ${rates("app")}`,
        `  bare echo (same events, async source, one frame each):          ${rates("bare")}`,
        `  echo through lib/api/sse.ts + the same piping, no engine:       ${rates("sseEcho")}  = ${formatRatio(rate("sseEcho") / rate("bare"))} bare`,
        `  engine publishing with no SSE client (bus listener only):       ${rates("engine")}  = ${formatRatio(rate("engine") / rate("bare"))} bare`,
        `paced, ${formatNumber(pacedDeltas.length)} deltas ${PACED.delayMs} ms apart, publish → parsed by the client, ${PACED_ROUNDS} rounds:`,
        `  app:                          ${p99s(paced.app)}`,
        `  bare echo:                    ${p99s(paced.bare)}`,
        `  echo through lib/api/sse.ts:  ${p99s(paced.sseEcho)}`,
        `burst latency (queueing included): app ${latency(burst.app)}; bare echo ${latency(burst.bare)}`,
        "client: another process on 127.0.0.1, JSON.parse per frame; times on the shared monotonic clock",
      ],
      evidence,
    };
  });

runFigureIfMain(import.meta.url, measure);
