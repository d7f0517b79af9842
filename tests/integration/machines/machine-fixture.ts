import fs from "node:fs";
import path from "node:path";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { pollUntil } from "../../support/poll";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

export interface Item {
  id: string;
  kind: string;
  status: string;
  toolName?: string;
  output?: string;
  text?: string;
}

export interface Turn {
  id: string;
  status: string;
  endedAt: string | null;
  error: { code: string; message: string } | null;
}

/** Tool calls run without asking: these tests are about where they run, not approvals. */
const CONFIG = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };

export interface Scene {
  temp: string;
  gatewayHome: string;
  server: ServerProcess;
  cleanup(): Promise<void>;
}

export async function startGateway(temp = makeTempHome("atrium-machines-").home, port?: number, config: Record<string, unknown> = {}): Promise<Scene> {
  const gatewayHome = path.join(temp, "gateway");
  fs.mkdirSync(gatewayHome, { recursive: true });
  fs.writeFileSync(path.join(gatewayHome, "config.json"), JSON.stringify({ ...CONFIG, ...config }));
  const server = await startServerProcess(gatewayHome, port ? { PORT: String(port) } : {});
  const scene: Scene = {
    temp,
    gatewayHome,
    server,
    async cleanup() {
      // scene.server, not the first one: a test may have restarted the gateway.
      await scene.server.stop();
      fs.rmSync(temp, { recursive: true, force: true });
    },
  };
  return scene;
}

export async function addMachine(server: ServerProcess, name: string, roots?: string[]): Promise<{ machine: { id: string; name: string }; token: string }> {
  const response = await server.api("/api/machines", { method: "POST", body: JSON.stringify({ name, ...(roots ? { roots } : {}) }) });
  if (response.status !== 201) throw new Error(`adding machine ${name}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A machine process with its own HOME and one root (`<temp>/<name>/work`), linked to the gateway. */
export async function linkMachine(scene: Scene, name: string): Promise<{ id: string; token: string; root: string; process: MachineProcess }> {
  const { machine, token } = await addMachine(scene.server, name);
  const base = path.join(scene.temp, name);
  const root = path.join(base, "work");
  fs.mkdirSync(root, { recursive: true });
  const machineProcess = startMachineProcess({ url: scene.server.url, token, home: path.join(base, "home"), roots: [root] });
  await machineStatus(scene.server, machine.id, "online");
  return { id: machine.id, token, root: fs.realpathSync(root), process: machineProcess };
}

export async function machineStatus(server: ServerProcess, machineId: string, status: "online" | "offline"): Promise<{ status: string; roots: string[] }> {
  return pollUntil(
    async () => {
      const { machines } = (await (await server.api("/api/machines")).json()) as { machines: Array<{ id: string; status: string; roots: string[] }> };
      const machine = machines.find((candidate) => candidate.id === machineId);
      return machine?.status === status ? machine : undefined;
    },
    { what: `machine ${machineId} to be ${status}`, timeoutMs: 20_000 },
  );
}

export async function endedTurn(server: ServerProcess, turnId: string, timeoutMs = 20_000): Promise<Turn> {
  return pollUntil(
    async () => {
      const { turn } = (await (await server.api(`/api/turns/${turnId}`)).json()) as { turn: Turn };
      return turn.endedAt ? turn : undefined;
    },
    { what: `turn ${turnId} to end`, timeoutMs },
  );
}

export async function items(server: ServerProcess, conversationId: string): Promise<Item[]> {
  return ((await (await server.api(`/api/conversations/${conversationId}/items?limit=500`)).json()) as { items: Item[] }).items;
}

export function toolCalls(all: Item[]): Item[] {
  return all.filter((item) => item.kind === "tool_call");
}

export async function createOn(server: ServerProcess, body: Record<string, unknown>): Promise<Response> {
  return server.api("/api/conversations", { method: "POST", body: JSON.stringify(body) });
}
