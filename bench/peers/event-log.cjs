// Preloaded (`node --require`) into a process the peers harness measures when it runs with
// --event-log DIR: every garbage collection, with its start on the harness's clock (monotonic
// microseconds, see bench/model/stamps.ts) and its length, appended to DIR/<role>-<pid>.jsonl as
// it is reported (a server killed with SIGKILL keeps what it logged), so the breakdown can tell
// which slow words a pause fell on.
const fs = require("node:fs");
const path = require("node:path");
const { PerformanceObserver, constants } = require("node:perf_hooks");

const directory = process.env.BENCH_EVENT_LOG;
if (directory) {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${process.env.BENCH_EVENT_ROLE ?? "process"}-${process.pid}.jsonl`);
  const offsetMicros = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: "scavenge", [constants.NODE_PERFORMANCE_GC_MAJOR]: "mark-sweep", [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak" };
  new PerformanceObserver((list) => {
    const lines = list.getEntries().map((entry) => JSON.stringify({ startMicros: Math.round(offsetMicros + entry.startTime * 1000), ms: entry.duration, kind: kinds[entry.detail?.kind] ?? String(entry.detail?.kind) }));
    fs.appendFileSync(file, `${lines.join("\n")}\n`);
  }).observe({ entryTypes: ["gc"] });
}
