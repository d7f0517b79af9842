import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { summarizeProfile, type CpuProfile } from "./support/cpu-profile";
import { runFigureIfMain, type Check, type Measure } from "./support/figure";
import { median } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";
import { FakeModel } from "./model/handles";
import { WARM_WORDS } from "./model/round";
import { runStartRound, WARM_CONVERSATIONS, type StartRound } from "./start/round";

/**
 * Figure 14 (issue 25): start and memory, as `npm start` runs the server (bundle, production
 * build, its node flags): spawn → /api/health 200, and the server's RSS at health, after a
 * first API request (no page yet: Next not loaded), with 20 warm conversations, and after the
 * first page. Medians over BENCH_START_ROUNDS fresh servers (default 5). BENCH_PROFILE=1 adds
 * one run under `node --cpu-prof` and summarizes the start.
 */
const MiB = 1024 * 1024;
const GOALS = { readyMs: 200, rssAtHealth: 80 * MiB, rssAfterApi: 80 * MiB, rssWarm: 120 * MiB };

function rounds(): number {
  const value = Number.parseInt(process.env.BENCH_START_ROUNDS ?? "5", 10);
  if (!(value >= 1)) throw new Error(`BENCH_START_ROUNDS must be a positive integer, got ${process.env.BENCH_START_ROUNDS}`);
  return value;
}

function profileEvidence(directory: string): string[] {
  const files = fs.readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"));
  if (files.length === 0) return [`no .cpuprofile was written in ${directory}`];
  const file = path.join(directory, files[0]);
  return [`the start under node --cpu-prof (${file}; spawn → the round's end):`, ...summarizeProfile(JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile, 15)];
}

export const measure: Measure = async () => {
  const fake = await FakeModel.start();
  try {
    const results: StartRound[] = [];
    for (let round = 0; round < rounds(); round += 1) {
      results.push(await withTempDirectory("atrium-bench-start-", (home) => runStartRound(home, fake, round)));
    }
    const mid = (pick: (round: StartRound) => number) => median(results.map(pick));
    const each = (pick: (round: StartRound) => number, scale = 1) => `[${results.map((round) => (pick(round) / scale).toFixed(0)).join(", ")}]`;
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
    const check = (metric: string, value: number, goal: number, format: (value: number) => string): Check => ({
      metric,
      value: format(value),
      goal: `≤ ${format(goal)}`,
      pass: value <= goal,
    });
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const checks: Check[] = [
      check(`node ${process.version}: ready, spawn → /api/health 200 (wall)`, mid((round) => round.readyMs), GOALS.readyMs, ms),
      { metric: `node ${process.version}: server CPU, spawn → /api/health 200`, value: ms(mid((round) => round.readyCpuMs)), goal: "—", pass: null },
      check(`node ${process.version}: RSS at health`, mid((round) => round.rssAtHealth), GOALS.rssAtHealth, mib),
      check(`node ${process.version}: RSS idle after a first API request (no page yet)`, mid((round) => round.rssAfterApi), GOALS.rssAfterApi, mib),
      check(`node ${process.version}: RSS with ${WARM_CONVERSATIONS} warm conversations (no page yet)`, mid((round) => round.rssWarm), GOALS.rssWarm, mib),
      { metric: `node ${process.version}: first turn, POST → turn ended`, value: ms(mid((round) => round.firstTurnEndMs)), goal: "—", pass: null },
      { metric: `node ${process.version}: RSS after the first page (Next loaded)`, value: mib(mid((round) => round.rssAfterPage)), goal: "—", pass: null },
    ];
    const details = [
      `node ${process.version} ${process.execArgv.join(" ")}; server flags as npm start; ${results.length} rounds, each a fresh server and data directory`,
      `per round — ready ${each((round) => round.readyMs)} ms, server CPU to health ${each((round) => round.readyCpuMs)} ms, first API request's server CPU ${each((round) => round.firstApiCpuMs)} ms`,
      `per round — RSS at health ${each((round) => round.rssAtHealth, MiB)}, after a first API request ${each((round) => round.rssAfterApi, MiB)}, warm ${each((round) => round.rssWarm, MiB)}, after the first page ${each((round) => round.rssAfterPage, MiB)} MiB`,
      `first turn of the server (one new conversation, ${WARM_WORDS} words): POST → model request ${each((round) => round.firstTurnModelMs)} ms, POST → turn ended ${each((round) => round.firstTurnEndMs)} ms (polled every 5 ms), server CPU ${each((round) => round.firstTurnCpuMs)} ms`,
      `first page (Next loaded and prepared on demand): ${each((round) => round.firstPageMs)} ms`,
      `warm: ${WARM_CONVERSATIONS} conversations, two 20-word turns each through the openai-compatible provider against the fake model, then 1 s quiet`,
    ];
    const evidence: string[] = [];
    if (process.env.BENCH_PROFILE === "1") {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-bench-start-prof-"));
      await withTempDirectory("atrium-bench-start-", (home) =>
        runStartRound(home, fake, results.length, ["--cpu-prof", "--cpu-prof-dir", directory, "--cpu-prof-interval", "200"]),
      );
      evidence.push(...profileEvidence(directory));
    }
    return { figure: 14, title: `start and memory (node ${process.version})`, checks, details, evidence };
  } finally {
    await fake.stop();
  }
};

runFigureIfMain(import.meta.url, measure);
