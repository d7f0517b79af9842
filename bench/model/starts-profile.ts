import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SourceMap } from "node:module";
import type { CpuProfile } from "../support/cpu-profile";
import { BENCH_TOKEN, freePort, startBenchServer } from "../support/server-process";
import { median, percentile } from "../support/stats";
import { withTempDirectory } from "../support/temp-directory";
import { FakeModel, StreamClient } from "./handles";
import { cpuMs } from "./proc";
import { CONVERSATIONS, post, toModelRequestMs, turnInEach, turnsEnded, WARM_WORDS, writeConfig, type Window } from "./round";
import { benchPrompt, parseBenchPrompt } from "./stamps";

/**
 * Turn starts under a profiler: `node --import tsx bench/model/starts-profile.ts` (after
 * `npm run build`). One server, 20 warm conversations, then BENCH_STARTS_ROUNDS (default 10)
 * rounds of a one-word turn in every conversation at once. Prints server CPU per turn and
 * submit → model request per round; with BENCH_PROFILE=1 the server runs under
 * `node --cpu-prof` and the samples inside the rounds are summarized by source line of the
 * bundle (through dist/'s source maps): self time and inclusive time per function. With
 * BENCH_STARTS_SPAN=1 only each round's submit → last model request is summarized. With
 * BENCH_NODE=<binary> BENCH_SQLITE_ADDON=<better_sqlite3.node built for it> the server runs on
 * that Node (as the peers harness runs its Node 24 server).
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const SAMPLE_INTERVAL_MICROS = 250;

function roundsWanted(): number {
  const value = Number.parseInt(process.env.BENCH_STARTS_ROUNDS ?? "10", 10);
  if (!(value >= 1)) throw new Error(`BENCH_STARTS_ROUNDS must be a positive integer, got ${process.env.BENCH_STARTS_ROUNDS}`);
  return value;
}

const maps = new Map<string, SourceMap | null>();
function mapFor(url: string): SourceMap | null {
  if (!maps.has(url)) {
    const file = new URL(url).pathname;
    const mapFile = `${file}.map`;
    maps.set(url, fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, "utf8"))) : null);
  }
  return maps.get(url)!;
}

function label(frame: CpuProfile["nodes"][number]["callFrame"], withLine: boolean): string {
  const name = frame.functionName || "(anonymous)";
  if (!frame.url) return `${name} (native)`;
  let where = frame.url.startsWith("file://") ? path.relative(ROOT, new URL(frame.url).pathname) : frame.url;
  let line = frame.lineNumber + 1;
  if (where.startsWith("dist/")) {
    const entry = mapFor(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      where = path.relative(ROOT, path.resolve(ROOT, "dist", entry.originalSource.replace(/^file:\/\//, "")));
      line = (entry.originalLine ?? 0) + 1;
    }
  }
  return withLine ? `${name} ${where}:${line}` : `${name} ${where}`;
}

function summarize(profile: CpuProfile, windows: Window[], top: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (!windows.some((window) => time >= window.fromMicros && time <= window.toMicros)) return;
    // A sample's delta is wall time: a server preempted in a syscall (a loopback write waking the
    // peer, on a busy machine) would charge the whole wait to it. Capped at twice the interval,
    // the weights approximate CPU time.
    const ms = Math.min(delta, 2 * SAMPLE_INTERVAL_MICROS) / 1000;
    total += ms;
    const own = label(byId.get(id)!.callFrame, true);
    self.set(own, (self.get(own) ?? 0) + ms);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const key = label(byId.get(current)!.callFrame, false);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  });
  const rows = (map: Map<string, number>, keep: (key: string) => boolean) =>
    [...map]
      .filter(([key]) => keep(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)}% ${ms.toFixed(1).padStart(7)} ms  ${key}`);
  return [
    `sampled in the windows: ${total.toFixed(0)} ms`,
    "self time:",
    ...rows(self, () => true),
    "inclusive time (project code):",
    ...rows(inclusive, (key) => / (lib|server\.ts|bin)\//.test(key) || / server\.ts/.test(key)),
    "inclusive time (packages and node):",
    ...rows(inclusive, (key) => !/ (lib|bin)\//.test(key) && !key.includes("(root)")),
  ];
}

/** The config's defaultCwd moved to a sibling of the data directory (a checkpoint never snapshots a cwd inside it). */
function moveWorkspaceOut(home: string): void {
  const workspace = `${home}-workspace`;
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(workspace, "README.md"), "A small project for the turn-starts bench.\n");
  for (let index = 0; index < 50; index += 1) fs.writeFileSync(path.join(workspace, "src", `file-${index}.ts`), `export const value${index} = ${index};\n`);
  // Older than the racy window, as a project's files usually are.
  const past = new Date(Date.now() - 60_000);
  for (const file of ["README.md", ...Array.from({ length: 50 }, (_, index) => `src/file-${index}.ts`)]) fs.utimesSync(path.join(workspace, file), past, past);
  const configPath = path.join(home, "config.json");
  const config = JSON.parse(fs.readFileSync(configPath, "utf8")) as { defaultCwd: string };
  config.defaultCwd = workspace;
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
}

/** CPU ms (user, system) of every thread of the process, by thread id (Linux /proc). */
function threadCpu(pid: number): Map<string, { name: string; user: number; system: number }> {
  const threads = new Map<string, { name: string; user: number; system: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[0-9]+$/, "");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(tid, { name: tid === String(pid) ? "main" : `${name}#${Number(tid) - pid}`, user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 });
    } catch {
      // the thread ended
    }
  }
  return threads;
}

/** The samples inside the windows, each weighing the time since the previous kept one. */
function onlyWindows(profile: CpuProfile, windows: Window[]): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let time = profile.startTime;
  profile.samples.forEach((sample, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (!windows.some((window) => time >= window.fromMicros && time <= window.toMicros)) return;
    samples.push(sample);
    timeDeltas.push(delta);
  });
  return { nodes: profile.nodes, samples, timeDeltas, startTime: windows[0].fromMicros, endTime: windows.at(-1)!.toMicros };
}

async function main(): Promise<void> {
  const profiling = process.env.BENCH_PROFILE === "1";
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-starts-prof-"));
  const nodeArgs = profiling ? ["--cpu-prof", "--cpu-prof-dir", directory, "--cpu-prof-interval", String(SAMPLE_INTERVAL_MICROS)] : [];
  const addon = process.env.BENCH_SQLITE_ADDON;
  if (process.env.BENCH_NODE && !addon) throw new Error("BENCH_NODE needs BENCH_SQLITE_ADDON: better-sqlite3's addon built for that Node");
  if (addon) nodeArgs.push("--require", path.join(ROOT, "bench", "peers", "node24-sqlite.cjs"));
  const fake = await FakeModel.start();
  const windows: Window[] = [];
  try {
    await withTempDirectory("atrium-starts-", async (home) => {
      writeConfig(home, fake.url);
      // BENCH_CWD_OUTSIDE=1: the conversations' cwd outside the data directory, so turn starts take checkpoints.
      if (process.env.BENCH_CWD_OUTSIDE === "1") moveWorkspaceOut(home);
      const server = await startBenchServer(home, await freePort(), { nodeArgs, node: process.env.BENCH_NODE, env: addon ? { BENCH_SQLITE_ADDON: addon } : {} });
      const pid = server.child.pid!;
      const client = StreamClient.start();
      try {
        const created = await Promise.all(
          Array.from({ length: CONVERSATIONS }, (_, index) =>
            post<{ conversation: { id: string }; turn: { id: string } }>(server, "/api/conversations", { text: benchPrompt(`new${index}`, WARM_WORDS, 0) }),
          ),
        );
        await turnsEnded(server, created.map((answer) => answer.turn.id));
        const ids = created.map((answer) => answer.conversation.id);
        await client.open(server.url, BENCH_TOKEN, ids);
        await turnInEach(server, client, ids, (index) => benchPrompt(`warm${index}`, WARM_WORDS, 0), WARM_WORDS);
        const strace = process.env.BENCH_STRACE ? spawn("strace", ["-f", "-c", "-o", process.env.BENCH_STRACE, "-p", String(pid)], { stdio: "ignore" }) : null;
        if (strace) await new Promise((resolve) => setTimeout(resolve, 1000));
        const threadsBefore = threadCpu(pid);
        const cpuPerTurn: number[] = [];
        const p50s: number[] = [];
        const p99s: number[] = [];
        for (let round = 0; round < roundsWanted(); round += 1) {
          const before = cpuMs(pid);
          const fromMicros = Number(process.hrtime.bigint() / 1000n);
          // BENCH_STARTS_ALONE=1: one conversation's turn per round, nothing else running.
          const roundIds = process.env.BENCH_STARTS_ALONE === "1" ? [ids[round % ids.length]] : ids;
          const starts = await turnInEach(server, client, roundIds, (index) => benchPrompt(`s${round}x${index}`, 1, 0), 1);
          const roundEnd = Number(process.hrtime.bigint() / 1000n);
          cpuPerTurn.push((cpuMs(pid) - before) / roundIds.length);
          const arrivals = await fake.arrivals();
          const toRequest = toModelRequestMs(starts.submitted, arrivals);
          p50s.push(percentile(toRequest, 0.5));
          p99s.push(percentile(toRequest, 0.99));
          // BENCH_STARTS_SPAN=1: the profile keeps only submit → the round's last model request (the turn starts alone).
          const lastRequest = Math.max(...[...starts.submitted.keys()].map((prompt) => arrivals[parseBenchPrompt(prompt)!.tag]));
          windows.push({ fromMicros, toMicros: process.env.BENCH_STARTS_SPAN === "1" ? lastRequest : roundEnd });
        }
        if (strace) {
          strace.kill("SIGINT");
          await new Promise((resolve) => strace.once("exit", resolve));
        }
        const threadsAfter = threadCpu(pid);
        const turns = roundsWanted() * (process.env.BENCH_STARTS_ALONE === "1" ? 1 : ids.length);
        const byName = new Map<string, { user: number; system: number }>();
        for (const [tid, after] of threadsAfter) {
          const before = threadsBefore.get(tid) ?? { name: after.name, user: 0, system: 0 };
          const sum = byName.get(after.name) ?? { user: 0, system: 0 };
          sum.user += after.user - before.user;
          sum.system += after.system - before.system;
          byName.set(after.name, sum);
        }
        const perThread = [...byName].filter(([, sum]) => sum.user + sum.system > 0);
        console.log(`server CPU per turn by thread (user + system): ${perThread.map(([name, sum]) => `${name} ${(sum.user / turns).toFixed(2)} + ${(sum.system / turns).toFixed(2)} ms`).join("; ")}`);
        console.log(`load average ${os.loadavg().map((value) => value.toFixed(1)).join(" ")}${profiling ? " (profiled: figures inflated)" : ""}`);
        console.log(`server CPU per turn, per round: [${cpuPerTurn.map((value) => value.toFixed(1)).join(", ")}] ms; median ${median(cpuPerTurn).toFixed(1)} ms, mean ${(cpuPerTurn.reduce((sum, value) => sum + value, 0) / cpuPerTurn.length).toFixed(2)} ms`);
        console.log(`submit → model request p50, per round: [${p50s.map((value) => value.toFixed(1)).join(", ")}] ms; median ${median(p50s).toFixed(1)} ms`);
        console.log(`submit → model request p99, per round: [${p99s.map((value) => value.toFixed(1)).join(", ")}] ms; median ${median(p99s).toFixed(1)} ms`);
      } finally {
        await client.stop();
        await server.stop();
        fs.rmSync(`${home}-workspace`, { recursive: true, force: true });
      }
    });
  } finally {
    await fake.stop();
  }
  if (!profiling) return;
  const file = fs.readdirSync(directory).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile in ${directory}`);
  const profile = JSON.parse(fs.readFileSync(path.join(directory, file), "utf8")) as CpuProfile;
  const windowed = onlyWindows(profile, windows);
  const windowedPath = path.join(directory, "starts-windows.cpuprofile");
  fs.writeFileSync(windowedPath, JSON.stringify(windowed));
  console.log(`profile: ${path.join(directory, file)}; the rounds alone: ${windowedPath}`);
  for (const line of summarize(profile, windows, Number.parseInt(process.env.BENCH_TOP ?? "40", 10))) console.log(line);
}

await main();
