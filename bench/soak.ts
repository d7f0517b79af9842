import v8 from "node:v8";
import vm from "node:vm";
import { POST as createConversation } from "../app/api/conversations/route";
import { parseConfig } from "../lib/config/config";
import { Runtime } from "../lib/engine/runtime";
import { registerRuntime, unregisterRuntime } from "../lib/engine/runtime-registry";
import { Store } from "../lib/store/store";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMiB, formatNumber, formatRatio } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

/**
 * Figure 6 (issue 12, item 5): 5,000 conversations opened one after another through the API's
 * own POST /api/conversations handler, each running one offline-model turn to its end. RSS at
 * the end against RSS after the first 100 (goal ≤ 1.3×): idle owners, bus channels and
 * appenders must not pile up. SOAK_CONVERSATIONS shrinks it for quick runs.
 */
const CONVERSATIONS = Number(process.env.SOAK_CONVERSATIONS ?? 5000);
const BASELINE_AFTER = 100;
const GOAL = 1.3;
const TOKEN = "bench-token-0123456789-abcdefghijklmn";

function turnEnded(runtime: Runtime, conversationId: string, turnId: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (event.type === "turn.ended" && event.turn.id === turnId) {
        unsubscribe();
        resolve();
      }
    });
    if (runtime.getTurn(turnId).endedAt) {
      unsubscribe();
      resolve();
    }
  });
}

// Both points are measured after a full collection: otherwise the figure says when V8 last
// collected, not what the process keeps.
v8.setFlagsFromString("--expose-gc");
const collect = vm.runInNewContext("gc") as () => void;

function rss(): number {
  collect();
  collect();
  return process.memoryUsage.rss();
}

const measure: Measure = () =>
  withTempDirectory("atrium-bench-soak-", async (home) => {
    const runtime = new Runtime({ store: new Store(home, { log: () => {} }), config: parseConfig({ defaultCwd: home }), log: () => {} });
    await runtime.start();
    registerRuntime(runtime, TOKEN);
    try {
      let baseline = 0;
      const started = performance.now();
      for (let index = 0; index < CONVERSATIONS; index += 1) {
        const request = new Request("http://127.0.0.1/api/conversations", {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ text: `conversation ${index} [[stream:20]]` }),
        });
        const response = await createConversation(request, { params: Promise.resolve({}) } as never);
        if (response.status !== 201) throw new Error(`POST /api/conversations answered ${response.status}: ${await response.text()}`);
        const created = (await response.json()) as { conversation: { id: string }; turn: { id: string } };
        await turnEnded(runtime, created.conversation.id, created.turn.id);
        if (index + 1 === BASELINE_AFTER) baseline = rss();
      }
      const ms = performance.now() - started;
      const end = rss();
      const ratio = end / baseline;
      const owners = (runtime as unknown as { loadedOwners?: number }).loadedOwners;
      const channels = (runtime.bus as unknown as { channelCount?: number }).channelCount;
      return {
        figure: 6,
        title: `soak: ${formatNumber(CONVERSATIONS)} conversations opened one after another through the API, a turn in each`,
        checks: [
          { metric: `RSS at the end / after the first ${BASELINE_AFTER}`, value: formatRatio(ratio), goal: `≤ ${GOAL}×`, pass: ratio <= GOAL },
          { metric: "RSS at the end", value: formatMiB(end), goal: "none (reported)", pass: null },
        ],
        details: [
          `RSS after ${BASELINE_AFTER}: ${formatMiB(baseline)}; at the end: ${formatMiB(end)}; ${formatNumber(ms)} ms in all (${(ms / CONVERSATIONS).toFixed(1)} ms per conversation)`,
          `owners in memory at the end: ${owners ?? "not reported"}; bus channels: ${channels ?? "not reported"}; V8 heap used ${formatMiB(process.memoryUsage().heapUsed)} of ${formatMiB(process.memoryUsage().heapTotal)}, external ${formatMiB(process.memoryUsage().external)}`,
        ],
        evidence: [],
      };
    } finally {
      await runtime.stop();
      unregisterRuntime();
    }
  });

runFigureIfMain(import.meta.url, measure);
