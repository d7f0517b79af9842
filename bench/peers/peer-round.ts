import { setTimeout as sleep } from "node:timers/promises";
import { collectGarbage } from "../model/collect-garbage";
import type { FakeModel } from "../model/handles";
import { rssBytes, sampleRss, treeCpuMs, treeRssBytes } from "../model/proc";
import { CONVERSATIONS, IDLE_MS, SEQUENTIAL_TURNS, toModelRequestMs, WARM_WORDS, WORDS } from "../model/round";
import { benchPrompt, monotonicMicros } from "../model/stamps";
import { wordsKept, type Driver, type Tracker } from "./driver";

/**
 * One round of one system, the model-stream figure's round (bench/model/round.ts) through a
 * Driver: ready time and idle RSS, 20 conversations each with two short warm-up turns, warm
 * RSS, turns one at a time, one turn in every conversation at once (CPU and RSS of the
 * server's process tree, submit → model request from the fake's arrivals), then a long turn
 * killed with SIGKILL after 500 streamed words, and the words the restarted system still has.
 */
const KILL_AFTER_WORDS = 500;
const KILL_TURN_WORDS = 1_000;
const TURN_TIMEOUT_MS = 120_000;

export interface WordSample {
  turn: number;
  index: number;
  sentMicros: number;
  ms: number;
}

export interface PeerFigures {
  readyMs: number;
  idleRss: number;
  warmRss: number;
  peakRss: number;
  /** The same for the server process alone, without the helpers it runs (Codex: a login shell per new thread). */
  warmRssMain: number;
  peakRssMain: number;
  sequential: number[];
  /** The same words with their turn, index and send time (the per-word breakdown). */
  sequentialSamples: WordSample[];
  concurrent: number[];
  submitToRequestMs: number[];
  concurrentCpuMs: number;
  concurrentWords: number;
  sequentialCpuMs: number;
  sequentialWords: number;
  /** Server CPU ms per wall second in the quiet spell after the warm-up (background work). */
  idleCpuPerSecond: number;
  /** Stamped words of the killed turn the restarted system has stored. */
  kept: number;
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not done within ${TURN_TIMEOUT_MS} ms`)), TURN_TIMEOUT_MS)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One message in each conversation at once; answers when each send left, by prompt. */
async function turnInEach(driver: Driver, tracker: Tracker, ids: string[], prompt: (index: number) => string, words: number): Promise<Map<string, number>> {
  const done = tracker.expect(ids, words);
  const submitted = new Map<string, number>();
  await Promise.all(
    ids.map(async (id, index) => {
      submitted.set(prompt(index), monotonicMicros());
      await driver.send(id, prompt(index));
    }),
  );
  await within(done, `${driver.label}: ${ids.length} turn(s) of ${words} words`);
  return submitted;
}

/** The long turn, SIGKILL once the client has 500 of its words, a restart, and what it kept. */
async function killTest(driver: Driver, tracker: Tracker, home: string, conversationId: string, tag: string): Promise<number> {
  const reached = new Promise<void>((resolve) => {
    tracker.onWords = (id, words) => {
      if (id === conversationId && words >= KILL_AFTER_WORDS) resolve();
    };
  });
  void tracker.expect([conversationId], KILL_TURN_WORDS);
  await driver.send(conversationId, benchPrompt(tag, KILL_TURN_WORDS));
  await within(reached, `${driver.label}: ${KILL_AFTER_WORDS} words of the turn to kill`);
  tracker.onWords = null;
  await driver.kill();
  tracker.fail(new Error("killed"));
  await driver.start(home);
  await driver.settle();
  return wordsKept(await driver.history(conversationId), tag);
}

/** `sequentialOnly`: stop after the turns one at a time (no concurrent turns, no kill test). */
export async function peerRound(driver: Driver, tracker: Tracker, home: string, fake: FakeModel, tagPrefix: string, sequentialOnly = false): Promise<PeerFigures> {
  const tag = (kind: string, index: number) => `${tagPrefix}-${kind}${index}`;
  const readyMs = await driver.start(home);
  try {
    await driver.settle();
    const pid = driver.pid;
    const idleRss = treeRssBytes(pid);
    const ids = await within(
      Promise.all(Array.from({ length: CONVERSATIONS }, (_, index) => driver.create(benchPrompt(tag("new", index), WARM_WORDS, 0)))),
      `${driver.label}: creating ${CONVERSATIONS} conversations`,
    );
    await turnInEach(driver, tracker, ids, (index) => benchPrompt(tag("warm", index), WARM_WORDS, 0), WARM_WORDS);
    const idleCpuBefore = treeCpuMs(pid);
    const idleStarted = performance.now();
    await sleep(IDLE_MS);
    const idleCpuPerSecond = ((treeCpuMs(pid) - idleCpuBefore) * 1000) / (performance.now() - idleStarted);
    const warmRss = treeRssBytes(pid);
    const warmRssMain = rssBytes(pid);

    const sequential: number[] = [];
    const sequentialSamples: WordSample[] = [];
    let sequentialWords = 0;
    const sequentialCpuBefore = treeCpuMs(pid);
    for (let turn = 0; turn < SEQUENTIAL_TURNS; turn += 1) {
      // The harness (this process, which reads the stream) and the fake model collect their garbage between turns, not on a measured word.
      collectGarbage();
      await fake.collectGarbage();
      await turnInEach(driver, tracker, [ids[turn % ids.length]], () => benchPrompt(tag("seq", turn)), WORDS);
      sequential.push(...tracker.latencies());
      for (const sample of tracker.samples()) sequentialSamples.push({ turn, ...sample });
      sequentialWords += tracker.words();
    }
    const sequentialCpuMs = treeCpuMs(pid) - sequentialCpuBefore;
    if (sequentialOnly) {
      const none = { concurrent: [], submitToRequestMs: [], concurrentCpuMs: Number.NaN, concurrentWords: 0, peakRss: Number.NaN, peakRssMain: Number.NaN, kept: Number.NaN };
      return { readyMs, idleCpuPerSecond, idleRss, warmRss, warmRssMain, sequential, sequentialSamples, sequentialCpuMs, sequentialWords, ...none };
    }

    const stopSampling = sampleRss(pid, 25, treeRssBytes);
    const stopSamplingMain = sampleRss(pid, 25);
    const cpuBefore = treeCpuMs(pid);
    const submitted = await turnInEach(driver, tracker, ids, (index) => benchPrompt(tag("con", index)), WORDS);
    const concurrentCpuMs = treeCpuMs(pid) - cpuBefore;
    const peakRss = stopSampling();
    const peakRssMain = stopSamplingMain();
    const concurrent = tracker.latencies();
    const concurrentWords = tracker.words();
    const arrivals = await fake.arrivals();
    const submitToRequestMs = toModelRequestMs(submitted, arrivals);

    const kept = await killTest(driver, tracker, home, ids[0], tag("kill", 0));
    return { readyMs, idleCpuPerSecond, idleRss, warmRss, peakRss, warmRssMain, peakRssMain, sequential, sequentialSamples, concurrent, submitToRequestMs, concurrentCpuMs, concurrentWords, sequentialCpuMs, sequentialWords, kept };
  } finally {
    await driver.stop();
  }
}
