/**
 * Figure 16: streamed throughput through 1, 2 and 3 cluster nodes on one embedded PostgreSQL
 * (issue 24: "the model-stream figure through 1, 2 and 3 nodes"). Each round starts N real
 * server processes (server.ts), creates CONVERSATIONS conversations spread round-robin over them
 * (each node holds the ones it created), opens one watcher per conversation on its holder, then
 * sends every conversation a message at once asking the offline model for WORDS words, and times
 * from the first send until every turn has ended. Throughput is the deltas every watcher received
 * per second of that wall time; the ratio to one node is the figure. Rounds run 1, 2, 3, 3, 2, 1
 * nodes and each N keeps its better round, so a burst of load elsewhere weighs on every N alike.
 * On this machine (2 cores, PostgreSQL and the bench client on the same cores) the ratio is
 * bounded by the cores, not by the nodes; the details print the core count.
 * Run: node --import tsx bench/cluster-throughput.ts (its own embedded PostgreSQL; needs `npm run build`).
 */
import fs from "node:fs";
import os from "node:os";
import { startTestPostgres } from "../tests/support/embedded-postgres";
import { startClusterServer, type ClusterServer } from "../tests/support/cluster-server";
import { connectSse } from "../tests/support/sse-client";
import { TEST_TOKEN } from "../tests/support/server-process";
import { freePort } from "./support/server-process";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, formatNumber, formatRatio } from "./support/stats";

const CONVERSATIONS = 24;
const WORDS = 1_500;
/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const ROUND_ORDER = [1, 2, 3, 3, 2, 1];

interface Round {
  nodes: number;
  wallMs: number;
  deltas: number;
  /** CPU of all the node processes over the timed window. */
  nodeCpuMs: number;
}

/** A process's user + system CPU so far, from /proc (10 ms resolution). */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
const nodesCpuMs = (servers: ClusterServer[]) => servers.reduce((sum, server) => sum + cpuMsOf(server.child.pid!), 0);

async function createOn(server: ClusterServer, index: number): Promise<string> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: `throughput ${index}` }) });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  const answer = (await response.json()) as { conversation: { id: string }; turn: { id: string } | null };
  // The creating message's own turn ends before the timed one starts.
  for (;;) {
    const state = (await (await server.api(`/api/conversations/${answer.conversation.id}`)).json()) as { conversation: { status: string } };
    if (state.conversation.status === "idle") return answer.conversation.id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One round: N nodes, every conversation streaming at once, each watched on its holder. */
async function round(databaseUrl: string, nodes: number): Promise<Round> {
  const servers = await Promise.all(Array.from({ length: nodes }, async () => startClusterServer(databaseUrl, await freePort())));
  try {
    const holders = Array.from({ length: CONVERSATIONS }, (_, index) => servers[index % nodes]!);
    const ids = await Promise.all(holders.map((server, index) => createOn(server, index)));
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const watchers = await Promise.all(ids.map((id, index) => connectSse(`${holders[index]!.url}/api/conversations/${id}/events`, auth)));
    let deltas = 0;
    const cpuBefore = nodesCpuMs(servers);
    const started = performance.now();
    const sent = await Promise.all(
      ids.map(async (id, index) => {
        const response = await holders[index]!.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: `go [[stream:${WORDS}]]` }) });
        if (response.status !== 202) throw new Error(`message answered ${response.status}: ${await response.text()}`);
        return ((await response.json()) as { turn: { id: string } }).turn.id;
      }),
    );
    await Promise.all(
      watchers.map((watcher, index) =>
        watcher.waitFor((event) => {
          if (event.event === "item.delta") deltas += 1;
          return event.event === "turn.ended" && (JSON.parse(event.data) as { turn: { id: string } }).turn.id === sent[index];
        }, 120_000),
      ),
    );
    const wallMs = performance.now() - started;
    const nodeCpuMs = nodesCpuMs(servers) - cpuBefore;
    for (const watcher of watchers) watcher.close();
    return { nodes, wallMs, deltas, nodeCpuMs };
  } finally {
    await Promise.all(servers.map((server) => server.cleanup()));
  }
}

export const measure: Measure = async () => {
  const postgres = await startTestPostgres();
  try {
    const rounds: Round[] = [];
    for (const nodes of ROUND_ORDER) rounds.push(await round(postgres.url, nodes));
    const rate = (entry: Round) => entry.deltas / (entry.wallMs / 1000);
    const best = (nodes: number) => rounds.filter((entry) => entry.nodes === nodes).reduce((a, b) => (rate(a) >= rate(b) ? a : b));
    const [one, two, three] = [best(1), best(2), best(3)];
    const expected = CONVERSATIONS * WORDS;
    const complete = rounds.every((entry) => entry.deltas >= expected);
    const cpuPerDelta = (entry: Round) => (entry.nodeCpuMs * 1000) / entry.deltas;
    return {
      figure: 16,
      title: "cluster throughput: one streamed turn per conversation through 1, 2 and 3 nodes",
      checks: [
        { metric: "every delta of every turn reached its watcher", value: complete ? "yes" : "no", goal: `${formatNumber(expected)} per round`, pass: complete },
        { metric: "deltas per second, 2 nodes / 1 node", value: formatRatio(rate(two) / rate(one)), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: "deltas per second, 3 nodes / 1 node", value: formatRatio(rate(three) / rate(one)), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: "nodes' CPU per delta, 3 nodes / 1 node", value: formatRatio(cpuPerDelta(three) / cpuPerDelta(one)), goal: "none yet (what splitting costs)", pass: null },
      ],
      details: [
        `${CONVERSATIONS} conversations × ${WORDS} words from the offline model, all at once, each watched on its holder; ${os.availableParallelism()} cores for PostgreSQL, the nodes and this client`,
        ...[one, two, three].map(
          (entry) => `${entry.nodes} node${entry.nodes === 1 ? "" : "s"}: ${formatNumber(rate(entry))} deltas/s (${formatNumber(entry.deltas)} deltas in ${formatMs(entry.wallMs)}, the better of 2 rounds), the nodes' CPU ${formatNumber(cpuPerDelta(entry))} µs per delta`,
        ),
        `every round: ${rounds.map((entry) => `${entry.nodes}→${formatNumber(rate(entry))}/s`).join(", ")}`,
      ],
      evidence: [],
    };
  } finally {
    await postgres.stop();
  }
};

runFigureIfMain(import.meta.url, measure);
