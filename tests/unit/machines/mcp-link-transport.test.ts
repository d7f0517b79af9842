import { describe, expect, it } from "vitest";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { MachinePort, McpRelayHandlers } from "@/lib/ports/machine-port";
import { LinkTransport } from "@/lib/tools/mcp-link-transport";

/** A port whose one relay is driven by the test, standing in for the machine's end of the link. */
function relayPort(): { port: MachinePort; handlers: () => McpRelayHandlers; sent: string[] } {
  let handlers: McpRelayHandlers | undefined;
  const sent: string[] = [];
  const port = {
    openMcp: (_machineId: string, _spec: unknown, given: McpRelayHandlers) => {
      handlers = given;
      return { send: (line: string) => sent.push(line), close: () => undefined };
    },
  } as unknown as MachinePort;
  return { port, handlers: () => handlers!, sent };
}

function transport(port: MachinePort, stderr: string[] = []): LinkTransport {
  return new LinkTransport({
    machines: port,
    machineId: "m1",
    spec: { command: "node", args: [], env: {}, envFrom: {} },
    parse: (value) => JSONRPCMessageSchema.parse(value),
    onStderr: (line) => stderr.push(line),
    onSandbox: () => undefined,
  });
}

describe("LinkTransport: an MCP server's stdio relayed over a machine link", () => {
  it("passes JSON-RPC lines both ways and reports a line that is not one as an error, never as a message", async () => {
    const { port, handlers, sent } = relayPort();
    const link = transport(port);
    const messages: unknown[] = [];
    const errors: string[] = [];
    link.onmessage = (message) => messages.push(message);
    link.onerror = (error) => errors.push(error.message);
    await link.start();
    await link.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(JSON.parse(sent[0])).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
    handlers().onLine('{"jsonrpc":"2.0","id":1,"result":{}}');
    handlers().onLine("not json");
    handlers().onLine('{"jsonrpc":"1.0","nonsense":true}');
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    expect(errors).toHaveLength(2);
  });

  it("closes once when the link goes, marking the link lost; a server that exits is not a lost link", async () => {
    const lost = relayPort();
    const onLink = transport(lost.port);
    let closes = 0;
    onLink.onclose = () => (closes += 1);
    await onLink.start();
    lost.handlers().onExit("the link to the machine closed", true);
    await onLink.close();
    expect(closes).toBe(1);
    expect(onLink.linkLost).toBe(true);
    await expect(onLink.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow("not running");

    const exited = relayPort();
    const stderr: string[] = [];
    const onExit = transport(exited.port, stderr);
    await onExit.start();
    exited.handlers().onExit("the server exited (code 1)", false);
    expect(onExit.linkLost).toBe(false);
    expect(stderr).toEqual(["the server exited (code 1)"]);
  });
});
