import { setTimeout as sleep } from "node:timers/promises";
import { cpuMs, rssBytes } from "../model/proc";
import { post, turnsEnded, WARM_WORDS, writeConfig } from "../model/round";
import type { FakeModel } from "../model/handles";
import { benchPrompt } from "../model/stamps";
import { freePort, startBenchServer, type BenchServer } from "../support/server-process";

/**
 * One round of the start-and-memory figure on a fresh server and data directory: spawn →
 * /api/health 200 (wall and the server's CPU), RSS at health, after a first API request and a
 * quiet second, with `WARM_CONVERSATIONS` conversations that have each had two short turns
 * through the real openai-compatible provider, and last after the first page (Next loaded).
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
  rssWarm: number;
  rssAfterPage: number;
  firstPageMs: number;
}

/** A short turn in each of `count` new conversations, then a second one in each. */
async function warmUp(server: BenchServer, round: number, count: number): Promise<void> {
  const created = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      post<{ conversation: { id: string }; turn: { id: string } }>(server, "/api/conversations", { text: benchPrompt(`s${round}-new${index}`, WARM_WORDS, 0) }),
    ),
  );
  await turnsEnded(server, created.map((answer) => answer.turn.id));
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
    await warmUp(server, round, WARM_CONVERSATIONS);
    await sleep(QUIET_MS);
    const rssWarm = rssBytes(pid);
    const pageStarted = performance.now();
    const page = await server.get("/");
    await page.arrayBuffer();
    if (!page.ok) throw new Error(`GET / answered ${page.status}`);
    const firstPageMs = performance.now() - pageStarted;
    const rssAfterPage = rssBytes(pid);
    return { readyMs: server.readyMs, readyCpuMs, rssAtHealth, rssAfterApi, firstApiCpuMs, rssWarm, rssAfterPage, firstPageMs };
  } finally {
    await server.stop();
  }
}
