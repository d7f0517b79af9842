/**
 * Figure 17: 20 conversations running tools on one machine (issue 23's bench: "throughput of 20
 * conversations running tools on one machine"). A real server (server.ts, production build;
 * `npm run build` first) and a real `atrium machine connect` process on loopback. Each round
 * creates CONVERSATIONS conversations at once, every one running a shell call, a write_file and a
 * read_file (the offline model's tool directives, approvals off), either all on `local` or all on
 * the linked machine, and times from the first POST until every conversation is idle again. Rounds
 * alternate local and link (L, M, M, L, L, M) so a burst of load elsewhere weighs on both; each
 * side keeps its median. Every call is checked completed after the clock stops.
 * Run alone: node --import tsx bench/machine-conversations.ts
 */
import fs from "node:fs";
import path from "node:path";
import { startMachineProcess } from "../tests/support/machine-process";
import { startServerProcess, type ServerProcess } from "../tests/support/server-process";
import { runFigureIfMain, type Measure } from "./support/figure";
import { formatMs, median } from "./support/stats";
import { withTempDirectory } from "./support/temp-directory";

const CONVERSATIONS = 20;
const CALLS_PER_CONVERSATION = 3;
const ORDER = ["local", "link", "link", "local", "local", "link"] as const;
const POLL_MS = 25;
const ROUND_TIMEOUT_MS = 180_000;

type Side = (typeof ORDER)[number];

function tools(index: number, round: number): string {
  const file = `r${round}-c${index}.txt`;
  return [
    `[[tool:shell ${JSON.stringify({ command: `seq 1 2000 | tail -n 1; echo conversation ${index}` })}]]`,
    `[[tool:write_file ${JSON.stringify({ path: file, content: `round ${round} conversation ${index}\n` })}]]`,
    `[[tool:read_file ${JSON.stringify({ path: file })}]]`,
  ].join(" ");
}

async function created(server: ServerProcess, body: Record<string, unknown>): Promise<string> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/** Polls the conversation list (one request per poll, whatever the count) until every id is idle. */
async function allIdle(server: ServerProcess, ids: string[]): Promise<void> {
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  const wanted = new Set(ids);
  for (;;) {
    const { conversations } = (await (await server.api(`/api/conversations?limit=200`)).json()) as { conversations: Array<{ id: string; status: string }> };
    const idle = conversations.filter((conversation) => wanted.has(conversation.id) && conversation.status === "idle").length;
    if (idle === wanted.size) return;
    if (Date.now() > deadline) throw new Error(`only ${idle} of ${wanted.size} conversations ended within ${ROUND_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function checkCompleted(server: ServerProcess, ids: string[]): Promise<void> {
  for (const id of ids) {
    const { items } = (await (await server.api(`/api/conversations/${id}/items?limit=100`)).json()) as { items: Array<{ kind: string; status: string }> };
    const calls = items.filter((item) => item.kind === "tool_call");
    if (calls.length !== CALLS_PER_CONVERSATION || calls.some((call) => call.status !== "completed")) {
      throw new Error(`conversation ${id}: tool calls ${JSON.stringify(calls.map((call) => call.status))}`);
    }
  }
}

const measure: Measure = () =>
  withTempDirectory("atrium-bench-machine-conversations-", async (root) => {
    const home = path.join(root, "gateway");
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } }));
    fs.mkdirSync(path.join(root, "local-work"));
    const localWork = fs.realpathSync(path.join(root, "local-work"));
    const machineWork = path.join(root, "machine", "work");
    fs.mkdirSync(machineWork, { recursive: true });
    const server = await startServerProcess(home);
    let machine: ReturnType<typeof startMachineProcess> | undefined;
    try {
      const added = (await (await server.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "bench" }) })).json()) as { machine: { id: string }; token: string };
      machine = startMachineProcess({ url: server.url, token: added.token, home: path.join(root, "machine", "home"), roots: [machineWork] });
      await machine.waitForOutput(/connected to /, 1, 60_000);
      const target = (side: Side) => (side === "local" ? { cwd: localWork } : { machine: added.machine.id });
      // One warm-up conversation on each side: first-use costs (route code, the machine's first snapshot) stay out of the rounds.
      for (const side of ["local", "link"] as const) {
        const id = await created(server, { text: tools(0, -1), ...target(side) });
        await allIdle(server, [id]);
      }
      const walls: Record<Side, number[]> = { local: [], link: [] };
      for (const [round, side] of ORDER.entries()) {
        const started = performance.now();
        const ids = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, index) => created(server, { text: tools(index, round), ...target(side) })));
        await allIdle(server, ids);
        walls[side].push(performance.now() - started);
        await checkCompleted(server, ids);
        // The files landed where the round ran: the linked machine's root, or the local folder.
        const written = path.join(side === "link" ? machineWork : localWork, `r${round}-c0.txt`);
        if (!fs.existsSync(written)) throw new Error(`round ${round} (${side}) wrote no ${written}`);
      }
      const local = median(walls.local);
      const link = median(walls.link);
      const calls = CONVERSATIONS * CALLS_PER_CONVERSATION;
      return {
        figure: 17,
        title: `${CONVERSATIONS} conversations running tools at once on one machine (real server; a linked machine on loopback vs local)`,
        checks: [
          { metric: `${CONVERSATIONS} conversations on one linked machine, tool calls/s`, value: ((calls / link) * 1000).toFixed(1), goal: "reported", pass: null },
          { metric: `${CONVERSATIONS} conversations, link / local wall time`, value: `${(link / local).toFixed(2)}×`, goal: "reported", pass: null },
        ],
        details: [
          `each conversation: a shell call, a write_file and a read_file (${calls} calls a round), created at once, timed until all are idle`,
          `local: median ${formatMs(local)} (${walls.local.map(formatMs).join(", ")}), ${((calls / local) * 1000).toFixed(1)} calls/s`,
          `link: median ${formatMs(link)} (${walls.link.map(formatMs).join(", ")}), ${((calls / link) * 1000).toFixed(1)} calls/s`,
        ],
        evidence: [],
      };
    } finally {
      await machine?.stop();
      await server.stop();
    }
  });

runFigureIfMain(import.meta.url, measure);
