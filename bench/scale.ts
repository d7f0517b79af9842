import fs from "node:fs";
import { reindex } from "../lib/store/reindex";
import { runFigureIfMain, type Check, type Measure } from "./support/figure";
import { writeFixture } from "./support/reindex-fixture";
import { freePort, startBenchServer, type BenchServer } from "./support/server-process";
import { formatMiB, formatMs, formatNumber, median } from "./support/stats";
import { memoryBackedDirectory, withTempDirectory } from "./support/temp-directory";
import { timed } from "./support/timed";

/**
 * Figure 8 (issue 15, items 2 and 4): the server at scale. The fixture writer makes 100,000
 * conversations × 10 items (BENCH_SCALE shrinks it; BENCH_SCALE_CONVERSATIONS sets the count),
 * `reindex` indexes them, then the real server (production build: `npm run build` first)
 * answers each request REQUESTS times; the median is printed beside its goal. Ready time on
 * the big home is a detail; ready time on a fresh home and its idle RSS are goals of
 * bench/model-stream.ts.
 */
const CONVERSATIONS = 100_000;
const ITEMS = 10;
const REQUESTS = 15;

interface Probe {
  metric: string;
  path: string;
  goalMs: number;
}

const PROBES: Probe[] = [
  { metric: "first list page (limit=50)", path: "/api/conversations?limit=50", goalMs: 50 },
  { metric: "archived=all&limit=100", path: "/api/conversations?archived=all&limit=100", goalMs: 50 },
  { metric: "search, common word (q=the)", path: "/api/conversations?q=the&limit=50", goalMs: 50 },
  { metric: "search, no match (q=giraffe)", path: "/api/conversations?q=giraffe&limit=50", goalMs: 20 },
];

function conversationCount(): number {
  const explicit = process.env.BENCH_SCALE_CONVERSATIONS;
  if (explicit) return Math.max(1, Number.parseInt(explicit, 10));
  const scale = Number(process.env.BENCH_SCALE ?? "1");
  if (!(scale > 0 && scale <= 1)) throw new Error(`BENCH_SCALE must be in (0, 1], got ${process.env.BENCH_SCALE}`);
  return Math.max(1, Math.round(CONVERSATIONS * scale));
}

async function medianMs(server: BenchServer, pathname: string): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < REQUESTS; index += 1) {
    const started = performance.now();
    const response = await server.get(pathname);
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (!response.ok) throw new Error(`${pathname} answered ${response.status}`);
  }
  return median(samples);
}

function rssOf(pid: number | undefined): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

export const measure: Measure = async () => {
  return withTempDirectory(
    "atrium-bench-scale-",
    async (home) => {
      const conversations = conversationCount();
      const generated = timed(() => writeFixture(home, { conversations, items: ITEMS }));
      const indexed = timed(() => reindex(home, { log: () => {} }));
      const report = indexed.result;
      if (report.conversations !== conversations) throw new Error(`reindex indexed ${report.conversations} of ${conversations}`);
      const server = await startBenchServer(home, await freePort());
      try {
        const first = (await (await server.get("/api/conversations?limit=1")).json()) as { conversations: Array<{ id: string }> };
        const probes = [...PROBES, { metric: "one conversation's items", path: `/api/conversations/${first.conversations[0].id}/items`, goalMs: 50 }];
        const checks: Check[] = [];
        for (const probe of probes) {
          const ms = await medianMs(server, probe.path);
          checks.push({ metric: `p50 ${probe.metric}`, value: formatMs(ms), goal: `≤ ${formatMs(probe.goalMs)}`, pass: ms <= probe.goalMs });
        }
        return {
          figure: 8,
          title: `the server at scale, ${formatNumber(conversations)} conversations × ${ITEMS} items`,
          checks,
          details: [
            `fixture: ${formatNumber(generated.result.records)} records written in ${formatNumber(generated.wallMs)} ms; reindex ${formatNumber(indexed.wallMs)} ms`,
            `ready on this home: ${formatMs(server.readyMs)}; server RSS after the requests: ${formatMiB(rssOf(server.child.pid))}`,
            `each p50 is the median of ${REQUESTS} sequential requests from one client`,
          ],
          evidence: [],
        };
      } finally {
        await server.stop();
      }
    },
    memoryBackedDirectory(),
  );
};

runFigureIfMain(import.meta.url, measure);
