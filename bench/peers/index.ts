import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { FakeModel } from "../model/handles";
import { withTempDirectory } from "../support/temp-directory";
import { AtriumDriver } from "./atrium";
import { CodexDriver } from "./codex";
import { Tracker, type Driver } from "./driver";
import { OpencodeDriver } from "./opencode";
import { peerRound, type PeerFigures } from "./peer-round";
import { breakdown, readGcEvents } from "./breakdown";
import { table } from "./table";

/**
 * Atrium beside Codex and opencode, measured in one run against the same fake OpenAI-compatible
 * model (bench/model/fake-model.ts: 200 stamped words a turn, 5 ms apart), each through its
 * real provider path and its own API. Not part of `npm test` or `npm run bench`:
 *
 *   npm install --prefix /work/peers @openai/codex@0.169.0 opencode-ai@1.18.33   (outside the repo)
 *   npm run build
 *   node --import tsx bench/peers/index.ts --codex /work/peers/node_modules/.bin/codex \
 *     --opencode /work/peers/node_modules/.bin/opencode [--rounds 3] \
 *     [--node24 <node 24 binary> --node24-sqlite <better_sqlite3.node built for it>]
 *
 * After the table, the turns one at a time by word (./breakdown.ts). `--sequential-only` stops
 * each round after those turns; `--event-log DIR` logs every GC of Atrium's servers and of this
 * harness (./event-log.cjs), names the ones that overlap the slowest words and keeps every
 * word's sample in DIR; `--server-args="--cpu-prof --trace-gc"` adds node flags to Atrium's
 * server (BENCH_SERVER_STDOUT=<file> keeps its stdout, where --trace-gc writes).
 *
 * A peer left out (or not installed) is skipped with this hint. Rounds are interleaved: round
 * 1 of every system, then round 2, each round in a rotated order, so the machine's load
 * falls on all of them alike. Each round starts the system fresh on a new data directory.
 */
const INSTALL_HINT = "install the peers outside the repo: npm install --prefix /work/peers @openai/codex@0.169.0 opencode-ai@1.18.33, then pass --codex /work/peers/node_modules/.bin/codex --opencode /work/peers/node_modules/.bin/opencode";

const { values } = parseArgs({
  options: {
    codex: { type: "string" },
    opencode: { type: "string" },
    rounds: { type: "string", default: "3" },
    node24: { type: "string" },
    "node24-sqlite": { type: "string" },
    only: { type: "string" },
    "sequential-only": { type: "boolean", default: false },
    "event-log": { type: "string" },
    "server-args": { type: "string" },
  },
});

/** Where ./event-log.cjs writes the GCs of every Atrium server and of this harness (--event-log). */
const eventLog = values["event-log"] ? path.resolve(values["event-log"]) : undefined;

function versionOf(binary: string, args: string[]): string {
  return execFileSync(binary, args, { encoding: "utf8" }).trim().split("\n").pop()!;
}

/** The npm `codex` is a node wrapper; the measured process is the native binary it would run. */
function nativeCodex(binary: string): string {
  const real = fs.realpathSync(binary);
  if (!real.endsWith(".js")) return real;
  const vendor = path.join(path.dirname(real), "..", "..", `codex-${os.platform()}-${os.arch()}`, "vendor");
  for (const triple of fs.existsSync(vendor) ? fs.readdirSync(vendor) : []) {
    const candidate = path.join(vendor, triple, "bin", "codex");
    if (fs.existsSync(candidate)) return candidate;
  }
  return real;
}

interface System {
  key: string;
  driver: (tracker: Tracker, fakeUrl: string) => Driver;
  label: string;
}

function present(binary: string | undefined, name: string): binary is string {
  if (binary && fs.existsSync(binary)) return true;
  console.log(`${name}: ${binary ? `${binary} does not exist` : "not given"}; skipped — ${INSTALL_HINT}`);
  return false;
}

function systems(): System[] {
  const list: System[] = [];
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  if (present(values.opencode, "opencode")) {
    const binary = fs.realpathSync(values.opencode);
    const label = `opencode ${versionOf(binary, ["--version"])}`;
    list.push({ key: "oc", label, driver: (tracker, fakeUrl) => new OpencodeDriver(label, binary, fakeUrl, tracker) });
  }
  if (present(values.codex, "Codex")) {
    const binary = nativeCodex(values.codex);
    const label = `Codex ${versionOf(binary, ["--version"]).replace(/^codex-cli /, "")}`;
    list.push({ key: "cx", label, driver: (tracker, fakeUrl) => new CodexDriver(label, binary, fakeUrl, tracker) });
  }
  const node20 = `Atrium ${commit}, Node ${process.versions.node}`;
  const serverArgs = values["server-args"]?.split(/\s+/).filter((arg) => arg !== "") ?? [];
  list.push({ key: "a20", label: node20, driver: (tracker, fakeUrl) => new AtriumDriver({ label: node20, fakeUrl, serverArgs, eventLog }, tracker) });
  if (values.node24) {
    const node = values.node24;
    const sqliteAddon = values["node24-sqlite"];
    if (!sqliteAddon) throw new Error("--node24 needs --node24-sqlite: better-sqlite3's addon built for that Node (see STACK.md, .ci/run)");
    const label = `Atrium ${commit}, Node ${versionOf(node, ["--version"]).replace(/^v/, "")}`;
    list.push({ key: "a24", label, driver: (tracker, fakeUrl) => new AtriumDriver({ label, fakeUrl, node, sqliteAddon, serverArgs, eventLog }, tracker) });
  }
  const only = values.only?.split(",");
  return only ? list.filter((system) => only.includes(system.key)) : list;
}

function load(): string {
  return os.loadavg().map((value) => value.toFixed(2)).join(", ");
}

async function main(): Promise<void> {
  const rounds = Number.parseInt(values.rounds!, 10);
  if (!(rounds >= 1)) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  const measured = systems();
  if (eventLog) {
    process.env.BENCH_EVENT_LOG = eventLog;
    process.env.BENCH_EVENT_ROLE = "harness";
  }
  if (eventLog) createRequire(import.meta.url)("./event-log.cjs");
  const results = new Map<string, PeerFigures[]>(measured.map((system) => [system.key, []]));
  const loads: string[] = [`start ${new Date().toISOString()}: load ${load()}`];
  const fake = await FakeModel.start();
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = measured.map((_, index) => measured[(index + round) % measured.length]);
      for (const system of order) {
        const tracker = new Tracker();
        const driver = system.driver(tracker, fake.url);
        const started = performance.now();
        const figures = await withTempDirectory(`atrium-peers-${system.key}-`, (home) => peerRound(driver, tracker, home, fake, `${system.key}r${round}`, values["sequential-only"]));
        results.get(system.key)!.push(figures);
        console.log(`round ${round + 1}/${rounds} ${system.label}: ${((performance.now() - started) / 1000).toFixed(1)} s, load ${load()}`);
      }
      loads.push(`after round ${round + 1} ${new Date().toISOString()}: load ${load()}`);
    }
  } finally {
    await fake.stop();
  }
  console.log(`\n${os.cpus().length} CPUs; ${loads.join("; ")}`);
  console.log("200 words a turn, 5 ms apart; 5 turns one at a time, then one in each of 20 conversations at once; CPU and RSS are of the server's whole process tree (/proc); latency = parsed by this harness − written by the fake model, CLOCK_MONOTONIC\n");
  console.log(table(measured.map((system) => ({ label: system.label, rounds: results.get(system.key)! }))));
  const events = eventLog ? readGcEvents(eventLog) : [];
  for (const system of measured) {
    console.log(`\n${breakdown(system.label, results.get(system.key)!, events)}`);
    if (eventLog) fs.writeFileSync(path.join(eventLog, `samples-${system.key}.json`), JSON.stringify(results.get(system.key)!.map((round) => round.sequentialSamples)));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
