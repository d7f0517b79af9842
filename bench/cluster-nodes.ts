/**
 * Figure 15: two real server processes (server.ts) on one embedded PostgreSQL (DESIGN §10c).
 * - A command for a conversation A holds, sent to A and sent to B (forwarded, signed, to A):
 *   POST …/interrupt with nothing running (the owner answers 202 {turn: null}), and a read
 *   (GET /api/conversations/:id), one at a time; the added latency is the forward's cost.
 * - A watcher on B (A's stream relayed by B) against one on A: per item.delta, the arrival on B
 *   minus the arrival on A, over a streamed turn.
 * - Take-over after kill -9 of the holder, end to end: from the kill until B answers 202 to a
 *   message (its lease expired, B took it, closed the open turn, started the next).
 * - Browser sessions (in PostgreSQL, every node's set kept by NOTIFY): sign out on B, then ask A
 *   with the same cookie without pause until it refuses; the time from B's answer to A's 401.
 * Run: node --import tsx bench/cluster-nodes.ts (its own embedded PostgreSQL; needs `npm run build`).
 */
import { startTestPostgres } from "../tests/support/embedded-postgres";
import { startClusterServer, type ClusterServer } from "../tests/support/cluster-server";
import { connectSse } from "../tests/support/sse-client";
import { TEST_TOKEN } from "../tests/support/server-process";
import { freePort } from "./support/server-process";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, percentile } from "./support/stats";

const ROUNDS = 200;
const STREAM_WORDS = 400;
const LEASE_SECONDS = 10;

async function timed(count: number, call: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const response = await call();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

async function created(server: ClusterServer, text: string): Promise<{ id: string; turnId: string }> {
  const answer = (await (await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text }) })).json()) as { conversation: { id: string }; turn: { id: string } };
  return { id: answer.conversation.id, turnId: answer.turn.id };
}

/** Arrival times of each item.delta on A's and on B's watcher, by event id. */
/** Per session: signed in on A, signed out on B, then the time until A refuses the cookie. */
async function sessionEndings(a: ClusterServer, b: ClusterServer, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const signedIn = await fetch(`${a.url}/auth/signin?token=${TEST_TOKEN}`, { redirect: "manual" });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    const out = await fetch(`${b.url}/auth/signout`, { method: "POST", headers: { cookie, origin: b.url }, redirect: "manual" });
    if (out.status !== 303) throw new Error(`sign-out on B answered ${out.status}`);
    const ended = performance.now();
    const deadline = ended + 5_000;
    while ((await fetch(`${a.url}/api/conversations`, { headers: { cookie } })).status !== 401) {
      if (performance.now() > deadline) throw new Error("A still accepts a cookie signed out on B after 5 s");
    }
    times.push(performance.now() - ended);
  }
  return times;
}

async function watcherLag(a: ClusterServer, b: ClusterServer, id: string): Promise<number[]> {
  const auth = { authorization: `Bearer ${TEST_TOKEN}` };
  const [onA, onB] = await Promise.all([connectSse(`${a.url}/api/conversations/${id}/events`, auth), connectSse(`${b.url}/api/conversations/${id}/events`, auth)]);
  const arrivals = { a: new Map<string, number>(), b: new Map<string, number>() };
  const stamp = (into: Map<string, number>) => (event: { event?: string; id?: string }) => {
    if (event.event === "item.delta" && event.id) into.set(event.id, performance.now());
    return false;
  };
  void onA.waitFor(stamp(arrivals.a), 120_000).catch(() => undefined);
  void onB.waitFor(stamp(arrivals.b), 120_000).catch(() => undefined);
  const sent = (await (await a.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: `go [[stream:${STREAM_WORDS}]]` }) })).json()) as { turn: { id: string } };
  const ended = (event: { event?: string; data: string }) => event.event === "turn.ended" && JSON.parse(event.data).turn.id === sent.turn.id;
  await Promise.all([onA.waitFor(ended, 60_000), onB.waitFor(ended, 60_000)]);
  onA.close();
  onB.close();
  return [...arrivals.a].flatMap(([eventId, at]) => (arrivals.b.has(eventId) ? [arrivals.b.get(eventId)! - at] : []));
}

export const measure: Measure = async () => {
  const postgres = await startTestPostgres();
  const config = { cluster: { leaseSeconds: LEASE_SECONDS } };
  const [portA, portB] = [await freePort(), await freePort()];
  const [a, b] = await Promise.all([startClusterServer(postgres.url, portA, config), startClusterServer(postgres.url, portB, config)]);
  try {
    const { id } = await created(a, "bench");
    const interrupt = (server: ClusterServer) => () => server.api(`/api/conversations/${id}/interrupt`, { method: "POST", body: "{}" });
    const read = (server: ClusterServer) => () => server.api(`/api/conversations/${id}`);
    await timed(20, interrupt(b));
    const direct = await timed(ROUNDS, interrupt(a));
    const forwarded = await timed(ROUNDS, interrupt(b));
    const readDirect = await timed(ROUNDS, read(a));
    const readForwarded = await timed(ROUNDS, read(b));
    const lag = await watcherLag(a, b, id);
    const endings = await sessionEndings(a, b, 30);
    const slow = await created(a, "slow [[delay:60000]]");
    a.child.kill("SIGKILL");
    const killed = performance.now();
    for (;;) {
      const answer = await b.api(`/api/conversations/${slow.id}/messages`, { method: "POST", body: JSON.stringify({ text: "after" }) });
      if (answer.status === 202) break;
      await answer.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const takeOver = performance.now() - killed;
    const p = (values: number[], q: number) => formatMs(percentile(values, q));
    return {
      figure: 15,
      title: "cluster nodes: forwarded commands, relayed events, take-over",
      checks: [
        { metric: "command forwarded B → A, added p50", value: formatMs(percentile(forwarded, 0.5) - percentile(direct, 0.5)), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: "watcher on B behind watcher on A, p50", value: p(lag, 0.5), goal: "none yet (issue 24 sets none)", pass: null },
        { metric: `take-over after kill -9, end to end (leaseSeconds ${LEASE_SECONDS})`, value: formatMs(takeOver), goal: "≤ 15 s (issue 24)", pass: takeOver <= 15_000 },
      ],
      details: [
        `POST …/interrupt (nothing running), ${ROUNDS} one at a time: on the holder p50 ${p(direct, 0.5)} p90 ${p(direct, 0.9)}; through the other node p50 ${p(forwarded, 0.5)} p90 ${p(forwarded, 0.9)}`,
        `GET /api/conversations/:id, ${ROUNDS} one at a time: on the holder p50 ${p(readDirect, 0.5)}; through the other node p50 ${p(readForwarded, 0.5)} p90 ${p(readForwarded, 0.9)}`,
        `item.delta on B's relayed stream after A's, ${lag.length} deltas: p50 ${p(lag, 0.5)} p90 ${p(lag, 0.9)} p99 ${p(lag, 0.99)}`,
        `sign-out on B → A refuses the cookie, ${endings.length} sessions (A asked without pause, each ask a request): p50 ${p(endings, 0.5)} p90 ${p(endings, 0.9)} max ${p(endings, 1)}`,
        `kill -9 of the holder mid-turn → B answers 202 to a message for it: ${formatMs(takeOver)} (B retries every 100 ms; 503 node_unavailable until the lease runs out)`,
      ],
      evidence: [],
    };
  } finally {
    await Promise.all([a.cleanup(), b.cleanup()]);
    await postgres.stop();
  }
};

runFigureIfMain(import.meta.url, measure);
