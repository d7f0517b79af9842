import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { ulid } from "ulid";
import { MachineRegistry } from "../lib/machines/machine-registry";
import { routeMachineUpgrades } from "../lib/machines/machine-upgrade";
import { toolSandbox } from "../lib/sandbox/tool-sandbox";
import { shellTool } from "../lib/tools/shell";
import { runTool } from "../lib/tools/tool";
import { toolEnvironment } from "../lib/tools/tool-environment";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, median } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

/**
 * Figure 12: what the machine link costs (issue 23). The same shell calls, sandboxed the same
 * way (bwrap, workspace-write), run on `local` (the gateway's process) and through a real
 * `atrium machine connect` process on loopback, interleaved: a short command, a 1 MB streamed
 * output, and 20 calls at once on one machine (as 20 conversations would).
 */
const CALLS = 30;
const CONCURRENT = 20;
const MEGABYTE = "head -c 1000000 /dev/zero | tr '\\0' a";
const GOAL_ADDED_MS = 15;
const GOAL_STREAM_RATIO = 2;

const INTERRUPTS = 10;
const GOAL_INTERRUPT_MS = 200;

type Run = (command: string) => Promise<number>;
/** Starts a long call, aborts it once its first output arrives; resolves with ms from the abort to its interrupted result. */
type Interrupt = () => Promise<number>;

const measure: Measure = () =>
  withTempDirectory("atrium-bench-machine-", async (root) => {
    const { local, remote, interruptLocal, interruptRemote, stop } = await startLink(root);
    try {
      await local("true");
      await remote("true");
      const short = await interleaved(local, remote, "true", CALLS);
      const stream = await interleaved(local, remote, MEGABYTE, 10);
      const localBurst = await burst(local);
      const remoteBurst = await burst(remote);
      const interrupts = { local: [] as number[], remote: [] as number[] };
      for (let index = 0; index < INTERRUPTS; index += 1) {
        interrupts.local.push(await interruptLocal());
        interrupts.remote.push(await interruptRemote());
      }
      const slowestInterrupt = Math.max(...interrupts.remote);
      const added = median(short.remote) - median(short.local);
      const streamRatio = median(stream.remote) / median(stream.local);
      return {
        figure: 12,
        title: "machine link overhead (shell through atrium machine connect on loopback vs local, both under bwrap)",
        checks: [
          { metric: "added per short call, median", value: formatMs(added), goal: `≤ ${GOAL_ADDED_MS} ms`, pass: added <= GOAL_ADDED_MS },
          { metric: "1 MB streamed output, link / local", value: `${streamRatio.toFixed(2)}×`, goal: `≤ ${GOAL_STREAM_RATIO}×`, pass: streamRatio <= GOAL_STREAM_RATIO },
          { metric: "interrupt → process group gone, through the link, slowest", value: formatMs(slowestInterrupt), goal: `≤ ${GOAL_INTERRUPT_MS} ms`, pass: slowestInterrupt <= GOAL_INTERRUPT_MS },
          { metric: `${CONCURRENT} calls at once, link / local wall time`, value: `${(remoteBurst / localBurst).toFixed(2)}×`, goal: "reported", pass: null },
        ],
        details: [
          `short call (bash -c true): local median ${formatMs(median(short.local))}, link median ${formatMs(median(short.remote))} (${CALLS} each, interleaved)`,
          `1 MB output: local median ${formatMs(median(stream.local))}, link median ${formatMs(median(stream.remote))}`,
          `interrupt of a running \`sleep 30\` until its result says interrupted (the machine answers once the group has exited): local median ${formatMs(median(interrupts.local))}, link median ${formatMs(median(interrupts.remote))}, slowest ${formatMs(slowestInterrupt)} (${INTERRUPTS} each)`,
          `${CONCURRENT} concurrent short calls: local ${formatMs(localBurst)} (${((CONCURRENT / localBurst) * 1000).toFixed(0)} calls/s), link ${formatMs(remoteBurst)} (${((CONCURRENT / remoteBurst) * 1000).toFixed(0)} calls/s)`,
        ],
        evidence: [],
      };
    } finally {
      await stop();
    }
  });

async function interleaved(local: Run, remote: Run, command: string, calls: number): Promise<{ local: number[]; remote: number[] }> {
  const samples = { local: [] as number[], remote: [] as number[] };
  for (let index = 0; index < calls; index += 1) {
    samples.local.push(await local(command));
    samples.remote.push(await remote(command));
  }
  return samples;
}

async function burst(run: Run): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT }, () => run("true")));
  return performance.now() - started;
}

/** A gateway's machine registry on a loopback server, and a real machine process linked to it. */
async function startLink(root: string): Promise<{ local: Run; remote: Run; interruptLocal: Interrupt; interruptRemote: Interrupt; stop: () => Promise<void> }> {
  const work = path.join(root, "work");
  fs.mkdirSync(work);
  const registry = new MachineRegistry({
    file: path.join(root, "machines.json"),
    localEnabled: true,
    localSandbox: "workspace-write (bwrap)",
    defaultCwd: work,
    now: () => new Date(),
    newId: () => ulid(),
    publish: () => undefined,
    log: () => undefined,
  });
  const server = http.createServer((_request, response) => response.writeHead(404).end());
  const links = routeMachineUpgrades(server, () => registry);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const { machine, token } = await registry.add("bench", undefined);
  const machineEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: path.join(root, "home"), ATRIUM_MACHINE_TOKEN: token };
  const child = spawn(process.execPath, [path.resolve(import.meta.dirname, "..", "bin", "atrium.mjs"), "machine", "connect", `http://127.0.0.1:${port}`, "--root", work], {
    env: machineEnv as NodeJS.ProcessEnv,
    stdio: "ignore",
  });
  const deadline = Date.now() + 30_000;
  while (!registry.isLinked(machine.id)) {
    if (Date.now() > deadline) throw new Error("the bench machine did not link within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const sandbox = toolSandbox({ mode: "workspace-write", network: false, writable: [] }, path.join(root, "gateway-home"));
  const timed = async (call: () => Promise<{ status: string; output: string }>) => {
    const started = performance.now();
    const result = await call();
    if (result.status !== "completed") throw new Error(`the bench command failed: ${result.output.slice(0, 200)}`);
    return performance.now() - started;
  };
  const io = () => ({ signal: new AbortController().signal, onOutput: () => undefined });
  const interrupted = async (call: (io: { signal: AbortSignal; onOutput(delta: string): void }) => Promise<{ status: string; output: string }>) => {
    const controller = new AbortController();
    let aborted = 0;
    const result = call({
      signal: controller.signal,
      onOutput: () => {
        if (aborted) return;
        aborted = performance.now();
        controller.abort();
      },
    });
    const answer = await result;
    if (answer.status !== "interrupted" || !aborted) throw new Error(`the interrupted bench call ended ${answer.status}: ${answer.output.slice(0, 200)}`);
    return performance.now() - aborted;
  };
  const long = { command: "echo started; sleep 30" };
  return {
    local: (command) => timed(() => runTool(shellTool, { command }, { cwd: work, ...io(), env: toolEnvironment(), sandbox })),
    remote: (command) => timed(() => registry.run(machine.id, { tool: "shell", input: { command }, cwd: fs.realpathSync(work) }, io())),
    interruptLocal: () => interrupted((callIo) => runTool(shellTool, long, { cwd: work, ...callIo, env: toolEnvironment(), sandbox })),
    interruptRemote: () => interrupted((callIo) => registry.run(machine.id, { tool: "shell", input: long, cwd: fs.realpathSync(work) }, callIo)),
    async stop() {
      child.kill();
      registry.closeAll();
      links.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

runFigureIfMain(import.meta.url, measure);
