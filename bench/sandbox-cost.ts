import path from "node:path";
import { runShellCommand } from "../lib/tools/run-shell-command";
import { detectSandbox } from "../lib/sandbox/detect-sandbox";
import { toolSandbox } from "../lib/sandbox/tool-sandbox";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, median } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

/**
 * Figure 11: what the sandbox costs per shell call (issue 21). The same `true` command through
 * the shell tool's real path, unconfined (`sandbox.mode: off`) and under bwrap, interleaved
 * so both sides see the same machine. The goal is a ratio: confinement must not make a
 * short command feel slow.
 */
const CALLS = 40;
const GOAL_RATIO = 3;
const GOAL_ADDED_MS = 20;


const measure: Measure = () =>
  withTempDirectory("atrium-bench-sandbox-", async (root) => {
    const backend = detectSandbox();
    if (backend === null) {
      return { figure: 11, title: "sandbox cost per shell call", checks: [{ metric: "bwrap found", value: "no", goal: "bwrap on PATH", pass: false }], details: [], evidence: [] };
    }
    const home = path.join(root, "home");
    const cwd = root;
    const sandboxed = toolSandbox({ mode: "workspace-write", network: false, writable: [] }, home);
    const unconfined = toolSandbox({ mode: "off", network: false, writable: [] }, home);
    const call = async (sandbox: typeof sandboxed) => {
      const started = performance.now();
      const result = await runShellCommand({ command: "true", cwd, timeoutMs: 10_000, signal: new AbortController().signal, onOutput: () => {}, sandbox });
      if (result.status !== "completed") throw new Error(`the bench command failed: ${result.output}`);
      return performance.now() - started;
    };
    await call(unconfined);
    await call(sandboxed);
    const bare: number[] = [];
    const confined: number[] = [];
    for (let index = 0; index < CALLS; index += 1) {
      bare.push(await call(unconfined));
      confined.push(await call(sandboxed));
    }
    const ratio = median(confined) / median(bare);
    const added = median(confined) - median(bare);
    return {
      figure: 11,
      title: "sandbox cost per shell call (bash -c true through the shell tool)",
      checks: [
        { metric: "bwrap / bare, median", value: `${ratio.toFixed(2)}×`, goal: `≤ ${GOAL_RATIO}×`, pass: ratio <= GOAL_RATIO },
        { metric: "added per call, median", value: formatMs(added), goal: `≤ ${GOAL_ADDED_MS} ms`, pass: added <= GOAL_ADDED_MS },
      ],
      details: [`bare: median ${formatMs(median(bare))}; bwrap: median ${formatMs(median(confined))} (${CALLS} calls each, interleaved, ${backend})`],
      evidence: [],
    };
  });

runFigureIfMain(import.meta.url, measure);
