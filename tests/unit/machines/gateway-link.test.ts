import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { GatewayLink } from "@/lib/machines/gateway-link";
import { maximumKeptOutputCharacters } from "@/lib/tools/capped-output";

let server: WebSocketServer | undefined;
let machine: WebSocket | undefined;

afterEach(async () => {
  machine?.terminate();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** A real WebSocket pair on loopback: the gateway's link on one end, a machine the test scripts on the other. */
async function linked(): Promise<{ link: GatewayLink; machine: WebSocket }> {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => server!.once("listening", resolve));
  const accepted = new Promise<WebSocket>((resolve) => server!.once("connection", resolve));
  machine = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise((resolve) => machine!.once("open", resolve));
  const link = new GatewayLink(await accepted, () => undefined);
  return { link, machine };
}

describe("the gateway's end of a machine link trusts no frame", () => {
  it("keeps a call's output within what a shell keeps, however much a machine streams and claims", async () => {
    const { link, machine } = await linked();
    const half = "m".repeat(maximumKeptOutputCharacters / 2 + 10);
    machine.on("message", (data) => {
      const { callId } = JSON.parse(String(data)) as { callId: string };
      // Three streamed halves (past the cap), then a result that says "and this follows".
      for (let index = 0; index < 3; index += 1) machine.send(JSON.stringify({ type: "output", callId, delta: half }));
      machine.send(JSON.stringify({ type: "result", callId, result: { status: "completed", output: "z".repeat(1_000_000), streamed: true } }));
    });
    let live = 0;
    const result = await link.call({ tool: "shell", input: { command: "yes" }, cwd: "/" }, { signal: new AbortController().signal, onOutput: (delta) => (live += delta.length) });
    expect(live).toBe(maximumKeptOutputCharacters);
    expect(result.output.length).toBeLessThanOrEqual(maximumKeptOutputCharacters + 100);
    expect(result.output.startsWith("m".repeat(1000))).toBe(true);
    expect(result.output.endsWith("z".repeat(1000))).toBe(true);
    expect(result.output).toContain("characters of output omitted");
  }, 30_000);

  it("joins streamed text and the result's remainder exactly once", async () => {
    const { link, machine } = await linked();
    machine.on("message", (data) => {
      const { callId } = JSON.parse(String(data)) as { callId: string };
      machine.send(JSON.stringify({ type: "output", callId, delta: "héllo " }));
      machine.send(JSON.stringify({ type: "output", callId, delta: "wörld 🌍\n" }));
      machine.send(JSON.stringify({ type: "result", callId, result: { status: "failed", output: "exit code 1", exitCode: 1, streamed: true } }));
    });
    const result = await link.call({ tool: "shell", input: { command: "x" }, cwd: "/" }, { signal: new AbortController().signal, onOutput: () => undefined });
    expect(result).toEqual({ status: "failed", output: "héllo wörld 🌍\nexit code 1", exitCode: 1 });
  });
});
