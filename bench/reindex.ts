import os from "node:os";
import path from "node:path";
import { reindex, type ReindexReport } from "../lib/store/reindex";
import { profileCpu, summarizeProfile, type CpuProfile } from "./support/cpu-profile";
import { runFigureIfMain, type Measure } from "./support/figure";
import { writeFixture } from "./support/reindex-fixture";
import { recordsFloor, reindexFloor } from "./support/reindex-floor";
import { formatNumber, formatRatio } from "./support/stats";
import { memoryBackedDirectory, withTempDirectory } from "./support/temp-directory";
import { timed, type Timing } from "./support/timed";

/**
 * Figure 2: `reindex(home)` over 10,000 generated conversations × 50 items against the floor
 * of reading the same files, JSON.parse of every line and bare SQLite inserts (issue 2, item 10)
 * of the same rows into the index's own schema, full-text tables included (support/reindex-floor.ts).
 * The first floor, each line into one table with no index and no search, is still run and
 * printed: it measured the price of the search index more than reindex's own overhead.
 * BENCH_SCALE (0 < s ≤ 1) shrinks the conversation count for quick runs.
 * Both runs are sampled by the CPU profiler (BENCH_PROFILE=0 turns it off): a third full
 * reindex just to profile would not fit the bench's time budget, and sampling both sides
 * puts the profiler's small overhead on both.
 */
const CONVERSATIONS = 10_000;
const ITEMS = 50;
const GOAL = 1.5;
const PROFILE_PATH = path.join(os.tmpdir(), "atrium-bench-reindex.cpuprofile");
const FLOOR_PROFILE_PATH = path.join(os.tmpdir(), "atrium-bench-floor.cpuprofile");

function scale(): number {
  const value = Number(process.env.BENCH_SCALE ?? "1");
  if (!(value > 0 && value <= 1)) throw new Error(`BENCH_SCALE must be in (0, 1], got ${process.env.BENCH_SCALE}`);
  return value;
}

async function run<T>(work: () => T, savePath: string | null): Promise<Timing<T> & { profile: CpuProfile | null }> {
  if (process.env.BENCH_PROFILE === "0" || savePath === null) return { ...timed(work), profile: null };
  const { result, profile } = await profileCpu(() => timed(work), savePath);
  return { ...result, profile };
}

/** A reindex that skipped or flagged anything did not do the work the floor did. */
function checkReport(report: ReindexReport, conversations: number, records: number): void {
  const problems = report.skipped.length + report.problems.length + report.deleted.length;
  if (report.conversations !== conversations || report.records !== records || problems > 0) {
    throw new Error(
      `reindex indexed ${report.conversations}/${conversations} conversations and ${report.records}/${records} records ` +
        `(${report.skipped.length} skipped, ${report.problems.length} problems, ${report.deleted.length} deleted)`,
    );
  }
}

export const measure: Measure = () =>
  withTempDirectory(
    "atrium-bench-reindex-",
    async (home) => {
      const conversations = Math.max(1, Math.round(CONVERSATIONS * scale()));
      const generated = timed(() => writeFixture(home, { conversations, items: ITEMS }));
      const fixture = generated.result;

      // Both read what the generator just wrote, from memory.
      const floor = await run(() => reindexFloor(home, path.join(home, "floor.db")), FLOOR_PROFILE_PATH);
      if (floor.result !== fixture.records) throw new Error(`floor inserted ${floor.result} of ${fixture.records} records`);
      const records = timed(() => recordsFloor(home, path.join(home, "records-floor.db")));
      const rebuilt = await run(() => reindex(home, { log: () => {} }), PROFILE_PATH);
      checkReport(rebuilt.result, conversations, fixture.records);

      const ratio = rebuilt.wallMs / floor.wallMs;
      const pass = ratio <= GOAL;
      const evidence: string[] = [];
      if ((!pass || process.env.BENCH_PROFILE === "1") && rebuilt.profile) {
        evidence.push(`CPU profile of the timed reindex (saved to ${PROFILE_PATH}; open in Chrome DevTools):`);
        evidence.push(...summarizeProfile(rebuilt.profile));
        if (floor.profile) {
          evidence.push(`floor, for comparison (saved to ${FLOOR_PROFILE_PATH}):`, ...summarizeProfile(floor.profile, 5).slice(0, 7));
        }
      }
      const rate = (ms: number) => `${formatNumber((fixture.records / ms) * 1000)} records/s`;
      const line = (timing: Timing<unknown>) =>
        `${formatNumber(timing.wallMs)} ms wall (${rate(timing.wallMs)}), ${formatNumber(timing.cpuMs)} ms CPU`;
      return {
        figure: 2,
        title: `reindex, ${formatNumber(conversations)} conversations × ${ITEMS} items`,
        checks: [{ metric: "reindex / floor, wall time", value: formatRatio(ratio), goal: `≤ ${GOAL}×`, pass }],
        details: [
          `reindex(home):                                         ${line(rebuilt)}`,
          `floor (read + JSON.parse + bare inserts of the same rows and search tables, one transaction): ${line(floor)}`,
          `CPU-time ratio: ${formatRatio(rebuilt.cpuMs / floor.cpuMs)}`,
          `first floor (each line into one unindexed table, no search): ${line(records)}; reindex / it: ` +
            `${formatRatio(rebuilt.wallMs / records.wallMs)} wall, ${formatRatio(rebuilt.cpuMs / records.cpuMs)} CPU`,
          `fixture in ${home}: ${formatNumber(fixture.records)} records in ${formatNumber(fixture.files)} files, ` +
            `${formatNumber(fixture.bytes / 1024 / 1024)} MiB, written in ${formatNumber(generated.wallMs)} ms`,
        ],
        evidence,
      };
    },
    memoryBackedDirectory(),
  );

runFigureIfMain(import.meta.url, measure);
