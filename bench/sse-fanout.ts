import os from "node:os";
import path from "node:path";
import { profileCpu, summarizeProfile } from "./support/cpu-profile";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, formatNumber, formatRatio, median, percentile } from "./support/stats";
import { withSseBench } from "./sse/bench-env";
import { deltasPerSecond, echoRound, runtimeRound, type Pattern, type RoundResult } from "./sse/rounds";

/**
 * Figure 4 (issue 3, item 12): one conversation's burst of deltas fanned out to 50 SSE
 * clients (in one client process), aggregate deltas delivered per second, against the bare
 * echo fanning the same events out to 50 sockets. Rounds rotate which side goes first.
 */
const CLIENTS = 50;
const FANOUT: Pattern = { words: 1000, delayMs: 0, clients: CLIENTS };
const ROUNDS = 3;
const GOAL = 0.8;
const PROFILE_PATH = path.join(os.tmpdir(), "atrium-bench-fanout.cpuprofile");

type SideName = "app" | "bare" | "sseEcho";

export const measure: Measure = () =>
  withSseBench(async ({ runtime, bare, sseEcho, clients }) => {
    const deltas = (await runtimeRound(runtime, clients, FANOUT)).deltas;
    await echoRound(bare, clients, deltas, FANOUT);
    await echoRound(sseEcho, clients, deltas, FANOUT);

    const results: Record<SideName, RoundResult[]> = { app: [], bare: [], sseEcho: [] };
    const sides: Array<() => Promise<void>> = [
      async () => void results.app.push((await runtimeRound(runtime, clients, FANOUT)).result),
      async () => void results.bare.push(await echoRound(bare, clients, deltas, FANOUT)),
      async () => void results.sseEcho.push(await echoRound(sseEcho, clients, deltas, FANOUT)),
    ];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let index = 0; index < sides.length; index += 1) await sides[(index + round) % sides.length]();
    }

    const rate = (name: SideName) => median(results[name].map(deltasPerSecond));
    const ratio = rate("app") / rate("bare");
    const pass = ratio >= GOAL;
    const evidence: string[] = [];
    if (!pass || process.env.BENCH_PROFILE === "1") {
      const { profile } = await profileCpu(() => runtimeRound(runtime, clients, FANOUT), PROFILE_PATH);
      evidence.push(`CPU profile of the server process during one more app round (saved to ${PROFILE_PATH}):`);
      evidence.push(...summarizeProfile(profile, 10));
    }
    const rates = (name: SideName) =>
      `${formatNumber(rate(name))} [${results[name].map((result) => formatNumber(deltasPerSecond(result))).join(", ")}]`;
    const lastDelivery = (name: SideName) => {
      const all = results[name].flatMap((result) => result.latencies);
      return `p50 ${formatMs(percentile(all, 0.5))}, p99 ${formatMs(percentile(all, 0.99))}`;
    };
    return {
      figure: 4,
      title: `fan-out of one conversation to ${CLIENTS} SSE clients`,
      checks: [{ metric: "aggregate deltas/s, app / bare echo", value: formatRatio(ratio), goal: `≥ ${GOAL}×`, pass }],
      details: [
        `${formatNumber(deltas.length)} deltas × ${CLIENTS} clients per round, aggregate deltas/s, median [rounds]:`,
        `  app (Runtime → bus → ${CLIENTS} subscriptions of the events route): ${rates("app")}`,
        `  bare echo (each frame serialized once, written to ${CLIENTS} sockets): ${rates("bare")}`,
        `  echo through lib/api/sse.ts (${CLIENTS} sseResponse streams), no engine: ${rates("sseEcho")}  = ${formatRatio(rate("sseEcho") / rate("bare"))} bare`,
        `publish → parsed, queueing included: app ${lastDelivery("app")}; bare echo ${lastDelivery("bare")}`,
      ],
      evidence,
    };
  });

runFigureIfMain(import.meta.url, measure);
