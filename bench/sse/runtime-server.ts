import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { GET as conversationEvents } from "../../app/api/conversations/[id]/events/route";
import { parseConfig } from "../../lib/config/config";
import { Runtime } from "../../lib/engine/runtime";
import { registerRuntime, unregisterRuntime } from "../../lib/engine/runtime-registry";
import { Store } from "../../lib/store/store";
import { pipeResponse, toWebRequest } from "./pipe-response";

const TOKEN = "bench-token-0123456789-abcdefghijklmn";
const EVENTS_PATH = /^\/api\/conversations\/([^/?]+)\/events(\?|$)/;

export interface RuntimeServer {
  runtime: Runtime;
  origin: string;
  headers: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real Runtime on a temp home behind a minimal node:http server that hands
 * GET /api/conversations/:id/events to the app's own route handler (auth, id check,
 * sseResponse + runtime.subscribe), piped into the node response as Next's server does.
 */
export async function startRuntimeServer(home: string, config: Record<string, unknown> = {}): Promise<RuntimeServer> {
  const runtime = new Runtime({
    store: new Store(home, { log: () => {} }),
    config: parseConfig({ defaultCwd: home, ...config }),
    log: () => {},
  });
  await runtime.start();
  registerRuntime(runtime, TOKEN);
  const server = http.createServer((incoming, outgoing) => void serve(incoming, outgoing));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    runtime,
    origin: `http://127.0.0.1:${port}`,
    headers: { authorization: `Bearer ${TOKEN}` },
    async close() {
      server.closeAllConnections();
      server.close();
      await runtime.stop();
      unregisterRuntime();
    },
  };
}

async function serve(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
  const match = EVENTS_PATH.exec(incoming.url ?? "");
  if (!match) {
    outgoing.writeHead(404).end();
    return;
  }
  const request = toWebRequest(incoming, outgoing);
  await pipeResponse(await conversationEvents(request, { params: Promise.resolve({ id: decodeURIComponent(match[1]) }) }), outgoing);
}
