import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { httpCall } from "../support/http-call";
import { BENCH_TOKEN, freePort, startBenchServer, type BenchServer } from "../support/server-process";
import type { Received } from "./client-process";
import { StreamClient, type FakeModel } from "./handles";
import { cpuMs, peakRssBytes, rssBytes, sampleRss } from "./proc";
import { benchPrompt, monotonicMicros, parseBenchPrompt } from "./stamps";

/**
 * One round of the model-stream figure on a fresh server and a fresh data directory: ready
 * time and idle RSS, a warm-up turn in each conversation, turns one at a time, then one turn
 * in every conversation at once (CPU, RSS and submit → model request measured around it),
 * then the loopback floor straight from the fake model.
 */
export const CONVERSATIONS = 20;
export const SEQUENTIAL_TURNS = 5;
export const WORDS = 200;
export const WARM_WORDS = 20;
const TURN_END_TIMEOUT_MS = 30_000;
/** A quiet spell after the warm-up: what the server spends with nothing to do. */
export const IDLE_MS = 500;

export interface RoundOptions {
  round: number;
  /** No loopback floor: for the profiled extra run, which measures only the server. */
  skipFloor: boolean;
  nodeArgs?: string[];
}

export interface Window {
  fromMicros: number;
  toMicros: number;
}

export interface RoundFigures {
  readyMs: number;
  idleRss: number;
  /** RSS after a warm-up turn in every conversation and a short idle (the conversations stay loaded). */
  warmRss: number;
  /** Highest sampled RSS during the concurrent turns, and the kernel's high-water mark at the end. */
  peakRss: number;
  highWaterRss: number;
  sequential: number[];
  concurrent: number[];
  submitToRequestMs: number[];
  /** Concurrent: POST sent → its 202 received by the figure. */
  submitToAnswerMs: number[];
  /** The same as submitToRequestMs for the sequential turns, one at a time. */
  sequentialSubmitToRequestMs: number[];
  /** One-word turns in every conversation at once: server CPU per turn (start to end) and submit → model request. */
  startsCpuMsPerTurn: number;
  startsSubmitToRequestMs: number[];
  concurrentCpuMs: number;
  /** Server CPU over the sequential turns, and the words they streamed. */
  sequentialCpuMs: number;
  /** Server CPU ms per second of wall time while idle, the stream open and no turn running. */
  idleCpuPerSecond: number;
  concurrentWords: number;
  concurrentFrames: number;
  /** The windows in monotonic microseconds: first POST → last turn.ended received. */
  windows: { sequential: Window; concurrent: Window; starts: Window };
  floorSequential: number[];
  floorConcurrent: number[];
}

export function writeConfig(home: string, fakeUrl: string): void {
  const workspace = path.join(home, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "README.md"), "A small project for the model-stream bench.\n");
  const config = {
    defaultModel: "bench-fake",
    models: [{ id: "bench-fake", provider: "openai-compatible", baseURL: `${fakeUrl}/v1`, contextWindow: 128000, maxOutputTokens: 4000 }],
    defaultCwd: workspace,
  };
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify(config, null, 2));
}

export async function post<T>(server: BenchServer, pathname: string, body: object): Promise<T> {
  const response = await httpCall(`${server.url}${pathname}`, "POST", { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" }, JSON.stringify(body));
  if (!response.ok) throw new Error(`POST ${pathname}: HTTP ${response.status} ${response.text}`);
  return JSON.parse(response.text) as T;
}

/** Polls each turn until it has ended, with a deadline. */
export async function turnsEnded(server: BenchServer, turnIds: string[]): Promise<void> {
  const deadline = performance.now() + TURN_END_TIMEOUT_MS;
  for (const turnId of turnIds) {
    for (;;) {
      const { turn } = (await (await server.get(`/api/turns/${turnId}`)).json()) as { turn: { status: string; endedAt: string | null; error: unknown } };
      if (turn.endedAt) {
        if (turn.status !== "completed") throw new Error(`warm-up turn ${turnId} ended ${turn.status}: ${JSON.stringify(turn.error)}`);
        break;
      }
      if (performance.now() > deadline) throw new Error(`turn ${turnId} still ${turn.status} after ${TURN_END_TIMEOUT_MS} ms`);
      await sleep(20);
    }
  }
}

function allLatencies(received: Received): number[] {
  return Object.values(received.latencies).flat();
}

/** One message in each conversation at once; answers what the client received and when each POST left. */
export async function turnInEach(server: BenchServer, client: StreamClient, ids: string[], prompt: (index: number) => string, words: number) {
  const { done } = await client.expect(ids, words);
  const submitted = new Map<string, number>();
  const answered = new Map<string, number>();
  await Promise.all(
    ids.map(async (id, index) => {
      submitted.set(prompt(index), monotonicMicros());
      await post(server, `/api/conversations/${id}/messages`, { text: prompt(index) });
      answered.set(prompt(index), monotonicMicros());
    }),
  );
  return { received: await done, submitted, answered };
}

/** Per prompt: ms from its POST being sent to the fake model receiving its request. */
export function toModelRequestMs(submitted: Map<string, number>, arrivals: Record<string, number>): number[] {
  return [...submitted].map(([prompt, sentMicros]) => {
    const arrived = arrivals[parseBenchPrompt(prompt)!.tag];
    if (arrived === undefined) throw new Error(`the fake model never saw ${prompt}`);
    return (arrived - sentMicros) / 1000;
  });
}

export async function runRound(home: string, fake: FakeModel, options: RoundOptions): Promise<RoundFigures> {
  writeConfig(home, fake.url);
  const server = await startBenchServer(home, await freePort(), { nodeArgs: options.nodeArgs });
  const pid = server.child.pid!;
  // A client per round: its stream ends with this round's server.
  const client = StreamClient.start();
  try {
    // Health answers before Next is prepared: idle is once Next serves a request too.
    const listed = await server.get("/api/conversations?limit=1");
    if (!listed.ok) throw new Error(`GET /api/conversations answered ${listed.status}`);
    const idleRss = rssBytes(pid);
    const tag = (kind: string, index: number) => `r${options.round}-${kind}${index}`;
    const created = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, index) =>
        post<{ conversation: { id: string }; turn: { id: string } }>(server, "/api/conversations", { text: benchPrompt(tag("new", index), WARM_WORDS, 0) }),
      ),
    );
    await turnsEnded(server, created.map((answer) => answer.turn.id));
    const ids = created.map((answer) => answer.conversation.id);
    await client.open(server.url, BENCH_TOKEN, ids);
    // A second short turn in each: warms the messages route, the history and the stream.
    await turnInEach(server, client, ids, (index) => benchPrompt(tag("warm", index), WARM_WORDS, 0), WARM_WORDS);

    const idleCpuBefore = cpuMs(pid);
    const idleStarted = performance.now();
    await sleep(IDLE_MS);
    const idleCpuPerSecond = ((cpuMs(pid) - idleCpuBefore) * 1000) / (performance.now() - idleStarted);
    const warmRss = rssBytes(pid);

    const sequential: number[] = [];
    const sequentialSubmitted = new Map<string, number>();
    const sequentialCpuBefore = cpuMs(pid);
    const sequentialFrom = monotonicMicros();
    for (let turn = 0; turn < SEQUENTIAL_TURNS; turn += 1) {
      const { received, submitted } = await turnInEach(server, client, [ids[turn % ids.length]], () => benchPrompt(tag("seq", turn)), WORDS);
      sequential.push(...allLatencies(received));
      for (const [prompt, micros] of submitted) sequentialSubmitted.set(prompt, micros);
    }

    const sequentialCpuMs = cpuMs(pid) - sequentialCpuBefore;
    const sequentialWindow = { fromMicros: sequentialFrom, toMicros: monotonicMicros() };

    const stopSampling = sampleRss(pid);
    const cpuBefore = cpuMs(pid);
    const fromMicros = monotonicMicros();
    const concurrent = await turnInEach(server, client, ids, (index) => benchPrompt(tag("con", index)), WORDS);
    const toMicros = monotonicMicros();
    const concurrentCpuMs = cpuMs(pid) - cpuBefore;
    const peakRss = stopSampling();
    // Turn starts alone: one-word turns in every conversation at once, their whole CPU (start, one delta, end).
    const startsCpuBefore = cpuMs(pid);
    const startsFrom = monotonicMicros();
    const starts = await turnInEach(server, client, ids, (index) => benchPrompt(tag("start", index), 1, 0), 1);
    const startsWindow = { fromMicros: startsFrom, toMicros: monotonicMicros() };
    const startsCpuMs = cpuMs(pid) - startsCpuBefore;
    const arrivals = await fake.arrivals();
    const submitToRequestMs = toModelRequestMs(concurrent.submitted, arrivals);
    const submitToAnswerMs = [...concurrent.submitted].map(([prompt, sentMicros]) => (concurrent.answered.get(prompt)! - sentMicros) / 1000);

    const floorSequential = options.skipFloor ? [] : allLatencies(await client.direct(fake.url, [benchPrompt(tag("floor", 0))]));
    const floorConcurrent = options.skipFloor
      ? []
      : allLatencies(await client.direct(fake.url, ids.map((_, index) => benchPrompt(tag("floorcon", index)))));
    return {
      readyMs: server.readyMs,
      idleRss,
      warmRss,
      peakRss,
      highWaterRss: peakRssBytes(pid),
      sequential,
      concurrent: allLatencies(concurrent.received),
      submitToRequestMs,
      submitToAnswerMs,
      sequentialSubmitToRequestMs: toModelRequestMs(sequentialSubmitted, arrivals),
      startsCpuMsPerTurn: startsCpuMs / ids.length,
      startsSubmitToRequestMs: toModelRequestMs(starts.submitted, arrivals),
      concurrentCpuMs,
      sequentialCpuMs,
      idleCpuPerSecond,
      concurrentWords: concurrent.received.words,
      concurrentFrames: concurrent.received.frames,
      windows: { sequential: sequentialWindow, concurrent: { fromMicros, toMicros }, starts: startsWindow },
      floorSequential,
      floorConcurrent,
    };
  } finally {
    await client.stop();
    await server.stop();
  }
}
