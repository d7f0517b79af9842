import { setTimeout as sleep } from "node:timers/promises";
import { cpuMs, rssBytes } from "../model/proc";
import { post, toModelRequestMs, turnsEnded, WARM_WORDS, writeConfig } from "../model/round";
import type { FakeModel } from "../model/handles";
import { benchPrompt, monotonicMicros } from "../model/stamps";
import { freePort, startBenchServer, type BenchServer } from "../support/server-process";

/**
 * One round of the start-and-memory figure on a fresh server and data directory: spawn →
 * /api/health 200 (wall and the server's CPU), RSS at health, after a first API request and a
 * quiet second, the first turn of the server's life alone (what loading the turn machinery at
 * that turn costs), then with `WARM_CONVERSATIONS` conversations (the first turn's included)
 * that have each had two short turns through the real openai-compatible provider, and last
 * after the first page (Next loaded).
 */
export const WARM_CONVERSATIONS = 20;
const QUIET_MS = 1_000;

export interface StartRound {
  readyMs: number;
  /** The server's CPU (user + system) from spawn until health answered 200. */
  readyCpuMs: number;
  rssAtHealth: number;
  rssAfterApi: number;
  /** The first API request's own cost: server CPU from health to its answer. */
  firstApiCpuMs: number;
  /** The server's first turn (a new conversation): POST sent → the fake model got the request, and → the turn ended. */
  firstTurnModelMs: number;
  firstTurnEndMs: number;
  /** The server's CPU over that first turn (POST sent → seen ended). */
  firstTurnCpuMs: number;
  rssWarm: number;
  rssAfterPage: number;
  firstPageMs: number;
}

const FIRST_TURN_POLL_MS = 5;

type Created = { conversation: { id: string }; turn: { id: string } };

/** The server's first turn, alone: a new conversation with a short message. */
async function firstTurn(server: BenchServer, fake: FakeModel, round: number) {
  const pid = server.child.pid!;
  const prompt = benchPrompt(`s${round}-new0`, WARM_WORDS, 0);
  const cpuBefore = cpuMs(pid);
  const sent = monotonicMicros();
  const created = await post<Created>(server, "/api/conversations", { text: prompt });
  for (;;) {
    const { turn } = (await (await server.get(`/api/turns/${created.turn.id}`)).json()) as { turn: { endedAt: string | null } };
    if (turn.endedAt) break;
    await sleep(FIRST_TURN_POLL_MS);
  }
  const firstTurnEndMs = (monotonicMicros() - sent) / 1000;
  const firstTurnCpuMs = cpuMs(pid) - cpuBefore;
  await turnsEnded(server, [created.turn.id]);
  const [firstTurnModelMs] = toModelRequestMs(new Map([[prompt, sent]]), await fake.arrivals());
  return { created, figures: { firstTurnModelMs, firstTurnEndMs, firstTurnCpuMs } };
}

/** A short turn in each of `count` new conversations (after `first`), then a second one in each. */
async function warmUp(server: BenchServer, round: number, count: number, first: Created): Promise<void> {
  const rest = await Promise.all(
    Array.from({ length: count - 1 }, (_, offset) => offset + 1).map((index) =>
      post<Created>(server, "/api/conversations", { text: benchPrompt(`s${round}-new${index}`, WARM_WORDS, 0) }),
    ),
  );
  await turnsEnded(server, rest.map((answer) => answer.turn.id));
  const created = [first, ...rest];
  const second = await Promise.all(
    created.map((answer, index) =>
      post<{ turn: { id: string } }>(server, `/api/conversations/${answer.conversation.id}/messages`, { text: benchPrompt(`s${round}-warm${index}`, WARM_WORDS, 0) }),
    ),
  );
  await turnsEnded(server, second.map((answer) => answer.turn.id));
}

export async function runStartRound(home: string, fake: FakeModel, round: number, nodeArgs: string[] = []): Promise<StartRound> {
  writeConfig(home, fake.url);
  const server = await startBenchServer(home, await freePort(), { nodeArgs });
  const pid = server.child.pid!;
  try {
    const readyCpuMs = cpuMs(pid);
    const rssAtHealth = rssBytes(pid);
    const listed = await server.get("/api/conversations?limit=1");
    if (!listed.ok) throw new Error(`GET /api/conversations answered ${listed.status}`);
    await listed.arrayBuffer();
    const firstApiCpuMs = cpuMs(pid) - readyCpuMs;
    await sleep(QUIET_MS);
    const rssAfterApi = rssBytes(pid);
    const first = await firstTurn(server, fake, round);
    await warmUp(server, round, WARM_CONVERSATIONS, first.created);
    await sleep(QUIET_MS);
    const rssWarm = rssBytes(pid);
    const pageStarted = performance.now();
    const page = await server.get("/");
    await page.arrayBuffer();
    if (!page.ok) throw new Error(`GET / answered ${page.status}`);
    const firstPageMs = performance.now() - pageStarted;
    const rssAfterPage = rssBytes(pid);
    return { readyMs: server.readyMs, readyCpuMs, rssAtHealth, rssAfterApi, firstApiCpuMs, ...first.figures, rssWarm, rssAfterPage, firstPageMs };
  } finally {
    await server.stop();
  }
}
