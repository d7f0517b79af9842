import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { waitForHello } from "./gateway-link";
import type { MachineRegistry } from "./machine-registry";
import { MACHINE_CONNECT_PATH } from "./link-protocol";

/** A link carries tool output, not uploads: frames past this are refused by ws itself. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * `GET /api/machines/connect` (DESIGN §10b): the one HTTP upgrade the server accepts. The
 * machine token (never the access token) is checked before the WebSocket handshake, so a
 * revoked or unknown token gets a plain 401 and no socket; a token whose machine is already
 * linked gets 409, so one token cannot drive two links at once.
 */
export function machineUpgradeHandler(registry: () => MachineRegistry): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  return (request, socket, head) => {
    socket.on("error", () => socket.destroy());
    if (pathOf(request.url) !== MACHINE_CONNECT_PATH || request.method !== "GET") {
      refuse(socket, 404, "not_found", "no WebSocket is served here");
      return;
    }
    const machines = registry();
    const token = bearer(request.headers.authorization);
    const admit = () => admitMachine(server, machines, token ? machines.authenticate(token) : undefined, { request, socket, head });
    // A cluster node first looks up a token added on another node that it has not heard of yet.
    const prepared = token ? machines.prepareToken(token) : null;
    if (prepared) void prepared.then(admit);
    else admit();
  };
}

function admitMachine(
  server: WebSocketServer,
  machines: MachineRegistry,
  machine: ReturnType<MachineRegistry["authenticate"]>,
  { request, socket, head }: { request: IncomingMessage; socket: Duplex; head: Buffer },
): void {
  if (!machine) {
    refuseUnknownToken(socket);
    return;
  }
  if (machines.isLinked(machine.id)) {
    refuse(socket, 409, "machine_connected", `machine ${machine.name} is already connected with this token`);
    return;
  }
  // A cluster: one link per machine across every node; the machine retries once that link is gone.
  const holder = machines.linkHolder(machine.id);
  if (holder) {
    refuseHeldElsewhere(socket, machine.name, holder.nodeId);
    return;
  }
  // A cluster: the database decides between dials of one token to two nodes at the same instant.
  machines.claimLink(machine.id).then(
    (claim) => {
      if ("removed" in claim) {
        refuseUnknownToken(socket);
        return;
      }
      if ("heldBy" in claim) {
        refuseHeldElsewhere(socket, machine.name, claim.heldBy);
        return;
      }
      // A claimed dial that never becomes this node's link (closed first, refused at its hello) lets its own claim go;
      // once it is the link, the link's end lets it go.
      if (socket.destroyed) return machines.unclaimLink(machine.id, claim.claimed);
      let attached = false;
      socket.once("close", () => {
        if (!attached) machines.unclaimLink(machine.id, claim.claimed);
      });
      server.handleUpgrade(request, socket, head, (webSocket) => {
        waitForHello(webSocket).then(
          (hello) => (attached = machines.attach(machine.id, webSocket, hello, claim.claimed)),
          () => webSocket.terminate(),
        );
      });
    },
    (error: unknown) => {
      machines.log(`machine ${machine.name}: its link could not be claimed in the cluster's database: ${String(error)}`);
      refuse(socket, 503, "node_unavailable", "this node could not record the machine's link in the cluster's database; retry");
    },
  );
}

/**
 * Puts the machine link in front of every other upgrade listener: Next adds its own on the
 * first request (its dev-mode HMR socket) and closes any upgrade it does not know, which would
 * include this one. So `upgrade` events for the connect path reach only the machine handler;
 * every other one goes on to whoever listens (and is closed when nobody else does). Node
 * treats an upgrade as a plain request while no `upgrade` listener exists, so one is always there.
 */
export function routeMachineUpgrades(server: Server, registry: () => MachineRegistry): { close(): void } {
  const handler = machineUpgradeHandler(registry);
  // server.closeAllConnections() does not see upgraded sockets: they are ended here on close.
  const sockets = new Set<Duplex>();
  const emit = server.emit.bind(server) as (event: string, ...args: unknown[]) => boolean;
  server.emit = ((event: string, ...args: unknown[]) => {
    if (event !== "upgrade") return emit(event, ...args);
    const [request, socket, head] = args as [IncomingMessage, Duplex, Buffer];
    if (pathOf(request.url) === MACHINE_CONNECT_PATH) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      handler(request, socket, head);
      return true;
    }
    return emit(event, ...args);
  }) as Server["emit"];
  const fallback = (_request: IncomingMessage, socket: Duplex) => {
    if (server.listeners("upgrade").every((listener) => listener === fallback)) socket.destroy();
  };
  server.on("upgrade", fallback);
  return {
    close() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

function refuseUnknownToken(socket: Duplex): void {
  refuse(socket, 401, "unauthorized", "this machine token is not known to this gateway (revoked, or made by another gateway)");
}

/** One link per machine across the cluster: this dial loses to the one another node holds. */
function refuseHeldElsewhere(socket: Duplex, machineName: string, nodeId: string): void {
  refuse(socket, 409, "machine_connected", `machine ${machineName} is already connected with this token, to node ${nodeId} of the cluster`);
}

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  const reason = { 401: "Unauthorized", 404: "Not Found", 409: "Conflict", 503: "Service Unavailable" }[status] ?? "Error";
  // Destroyed soon after, whether or not the client closes its side: a refused dial holds nothing open.
  setTimeout(() => socket.destroy(), 1000).unref();
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function bearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match ? match[1] : null;
}

function pathOf(url: string | undefined): string {
  const value = url ?? "/";
  const end = value.search(/[?#]/);
  return end === -1 ? value : value.slice(0, end);
}
