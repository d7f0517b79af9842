import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMachineProcess, type MachineProcess } from "../../support/machine-process";
import { pollUntil } from "../../support/poll";
import { bridgeInto, canMakeNamespaces, makeNamespacePair, type NamespacePair } from "../../support/network-namespaces";
import { TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { addMachine, createOn, endedTurn, items, machineStatus, toolCalls } from "./machine-fixture";

const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const GATEWAY_PORT = 3249;

let pair: NamespacePair;
let temp: string;
let gateway: ChildProcess;
let gatewayOutput = "";
let bridge: Awaited<ReturnType<typeof bridgeInto>>;
let server: ServerProcess;
let machine: MachineProcess | undefined;

/** The real server, in the gateway's namespace, listening on its veth address; the test reaches it through the bridge. */
async function startGatewayInNamespace(home: string): Promise<void> {
  fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ approvals: { shell: "auto" } }));
  const env = { ...process.env, ATRIUM_HOME: home, ATRIUM_TOKEN: TEST_TOKEN, PORT: String(GATEWAY_PORT), HOST: "0.0.0.0", NODE_ENV: "production" as const };
  const [program, ...prefix] = pair.exec(pair.gateway);
  gateway = spawn(program, [...prefix, process.execPath, "--import", "tsx", "server.ts"], { cwd: PROJECT_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  gateway.stderr!.on("data", (chunk: Buffer) => (gatewayOutput += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${gatewayOutput}`)), 60_000);
    gateway.stdout!.on("data", (chunk: Buffer) => {
      gatewayOutput += chunk.toString();
      if (gatewayOutput.includes("Atrium is running at")) {
        clearTimeout(timer);
        resolve();
      }
    });
    gateway.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code}:\n${gatewayOutput}`));
    });
  });
}

// A real second host: the machine's only way to the gateway is a veth link between two namespaces this test makes.
describe.skipIf(!canMakeNamespaces())("a machine on another network namespace (DESIGN §10b)", () => {
  beforeAll(async () => {
    pair = makeNamespacePair();
    temp = makeTempHome("atrium-netns-").home;
    const home = path.join(temp, "gateway");
    fs.mkdirSync(home, { recursive: true });
    await startGatewayInNamespace(home);
    bridge = await bridgeInto(pair, pair.gateway, GATEWAY_PORT, temp);
    const url = `http://127.0.0.1:${bridge.port}`;
    server = {
      url,
      token: TEST_TOKEN,
      child: gateway,
      output: () => gatewayOutput,
      api: (pathname, init = {}) => fetch(`${url}${pathname}`, { ...init, headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json", ...(init.headers ?? {}) } }),
      stop: async () => null,
    } as ServerProcess;
  }, 90_000);

  afterAll(async () => {
    await machine?.stop("SIGKILL");
    bridge?.close();
    if (gateway && gateway.exitCode === null) {
      gateway.kill();
      await new Promise((resolve) => gateway.once("exit", resolve));
    }
    pair?.remove();
    if (temp) fs.rmSync(temp, { recursive: true, force: true });
  });

  it("links over the veth, runs a shell call there; unplugged mid-call, the heartbeat fails the call machine_disconnected; plugged back, the machine relinks by itself", async () => {
    const { machine: added, token } = await addMachine(server, "far-box");
    const root = path.join(temp, "far-box", "work");
    fs.mkdirSync(root, { recursive: true });
    machine = startMachineProcess({ url: `http://${pair.gatewayAddress}:${GATEWAY_PORT}`, token, home: path.join(temp, "far-box", "home"), roots: [root], prefix: pair.exec(pair.machine) });
    await machineStatus(server, added.id, "online");
    const first = await (await createOn(server, { text: '[[tool:shell {"command":"echo home=$HOME"}]]', machine: added.id })).json();
    expect((await endedTurn(server, first.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(server, first.conversation.id))[0].output).toBe(`home=${path.join(temp, "far-box", "home")}\n`);

    // Unplugged mid-call: no FIN or RST ever reaches the gateway, only silence; its heartbeat (10 s) finds it.
    const long = await (await createOn(server, { text: '[[tool:shell {"command":"echo started; sleep 4519"}]]', machine: added.id })).json();
    await pollUntil(async () => toolCalls(await items(server, long.conversation.id))[0]?.output?.includes("started"), { what: "the long call to start" });
    execFileSync("ip", ["-n", pair.machine, "link", "set", pair.machineLink, "down"]);
    const turn = await endedTurn(server, long.turn.id, 40_000);
    expect(turn.status).toBe("failed");
    expect(turn.error?.code).toBe("machine_disconnected");
    expect(toolCalls(await items(server, long.conversation.id))[0].status).toBe("interrupted");
    await machineStatus(server, added.id, "offline");

    // Plugged back in: the machine finds the gateway silent, redials by itself, and works again.
    execFileSync("ip", ["-n", pair.machine, "link", "set", pair.machineLink, "up"]);
    await machine.waitForOutput(/connected to /, 2, 90_000);
    await machineStatus(server, added.id, "online");
    const after = await (await server.api(`/api/conversations/${long.conversation.id}/messages`, { method: "POST", body: JSON.stringify({ text: '[[tool:shell {"command":"echo back"}]]' }) })).json();
    expect((await endedTurn(server, after.turn.id)).status).toBe("completed");
    expect(toolCalls(await items(server, long.conversation.id)).at(-1)?.output).toBe("back\n");
  }, 180_000);
});
