import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { HEALTH_PATH, healthBody } from "./lib/api/health";
import { exposureWarning } from "./lib/auth/exposure-warning";
import { sandboxStatus, sandboxWarning } from "./lib/sandbox/sandbox-status";
import { gate } from "./lib/auth/gate";
import { SessionStore } from "./lib/auth/session-store";
import { assertTokenStrength, loadOrCreateToken } from "./lib/auth/token";
import { loadConfig } from "./lib/config/config";
import { Runtime } from "./lib/engine/runtime";
import { registerRuntime, unregisterRuntime } from "./lib/engine/runtime-registry";
import { acquireLock } from "./lib/store/lock";
import { dataPaths, defaultHome } from "./lib/store/paths";
import { Store } from "./lib/store/store";
import { applySecurityHeaders } from "./lib/api/security-headers";
import { routeMachineUpgrades } from "./lib/machines/machine-upgrade";
import type { ClusterBoot } from "./lib/cluster/cluster-boot";
import { databaseUrlOf } from "./lib/cluster/database-url";
import { registerCluster } from "./lib/cluster/cluster-registry";
import { isForwardedPath } from "./lib/cluster/node-forward";
import { normalizeRequestPath } from "./lib/auth/request-path";
import { NODE_HEADER, SIGNATURE_HEADER } from "./lib/auth/cluster-signature";

export interface ServerOptions {
  home: string;
  host: string;
  port: number;
  dev?: boolean;
  log?: (message: string) => void;
  /** For tests: Next starts loading only once this settles, so the server can be seen before Next is ready. */
  beforeNext?: () => Promise<void>;
}

export interface RunningServer {
  url: string;
  signInUrl: string;
  runtime: Runtime;
  /** Settles once Next is prepared: every path is then served by it. Rejects if Next cannot start; close() is still the caller's. */
  ready: Promise<void>;
  close(): Promise<void>;
}

type NextApp = ReturnType<typeof import("next").default>;
type RequestHandler = ReturnType<NextApp["getRequestHandler"]>;

const PROJECT_ROOT = import.meta.dirname;
const NEXT_DELAY_MS = 100;

/**
 * The process entry (DESIGN §1): take the data-directory lock, open the store, recover,
 * put the Runtime on globalThis, listen, then hand requests to Next. It listens only once
 * recovery is done, so /api/health answering means no turn is left from before.
 *
 * Next is loaded and prepared after listening (it is most of the start-up time): until it
 * is ready, the server answers /api/health and the sign-in gate's refusals itself, and every
 * other request waits for Next rather than failing.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((message: string) => console.log(message));
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  // Before the lock and the store: a refused token leaves nothing behind.
  assertTokenStrength(process.env);
  fs.mkdirSync(options.home, { recursive: true });
  const paths = dataPaths(options.home);
  const config = loadConfig(options.home);
  const lock = acquireLock(paths.lock, { bindHost: options.host, port: options.port }, log);
  let store: Store | null = null;
  let cluster: ClusterBoot | null = null;
  try {
    // DESIGN §10c: with a database URL this server is a node of a cluster; without, files as always.
    const databaseUrl = databaseUrlOf(config);
    // Loaded only for a cluster: a single node never loads pg and the cluster's parts.
    if (databaseUrl) {
      const { bootCluster } = await import("./lib/cluster/cluster-boot");
      cluster = await bootCluster({ databaseUrl, config, host: options.host, port: options.port, log });
    }
    store = new Store(options.home, { log, cluster: cluster?.records, recordKey: cluster?.node.recordKey });
    const placement = cluster ? await cluster.attach(store) : undefined;
    const runtime = new Runtime({ store, config, log, placement });
    cluster?.onLost((conversationId) => runtime.cluster?.lost(conversationId));
    cluster?.onIndexed((conversationId, types) => runtime.cluster?.indexed(conversationId, types));
    await runtime.start();
    const token = loadOrCreateToken(paths.token);
    const sessions = new SessionStore(paths.sessions);
    const auth = { token, sessions, trustProxy: config.trustProxy };
    registerRuntime(runtime, token, { sessions, trustProxy: config.trustProxy });
    if (cluster) registerCluster({ nodeId: cluster.node.id, nodeUrl: cluster.node.url, signatures: cluster.signatures, nodes: cluster.node.nodes });
    let app: NextApp | null = null;
    let handle: RequestHandler | null = null;
    let preparing: Promise<void> | null = null;
    let closing: Promise<void> | null = null;
    let settleReady!: (prepared: Promise<void>) => void;
    const ready = new Promise<void>((resolve) => (settleReady = resolve));
    ready.catch(() => undefined);
    // Loading Next blocks the event loop for a few hundred ms: it starts NEXT_DELAY_MS after
    // listening (so health checks polling the fresh process are answered at once), or at the
    // first request that needs it, whichever is first.
    const prepareNext = (): Promise<void> => {
      if (preparing) return preparing;
      preparing = (async () => {
        await options.beforeNext?.();
        const { default: next } = await import("next");
        app = next({ dev: options.dev ?? false, dir: PROJECT_ROOT, hostname: options.host, port: options.port });
        await app.prepare();
        handle = app.getRequestHandler();
      })();
      // Requests waiting on `preparing` answer its failure; the caller hears of it through `ready`.
      preparing.catch(() => undefined);
      settleReady(preparing);
      return preparing;
    };
    const server = http.createServer((request, response) => {
      // One place for every answer's security headers: the gate's, health's and Next's.
      applySecurityHeaders(request, response);
      // Anyone can send X-Forwarded-*: without a configured proxy they are dropped here, so
      // neither the gate nor Next (request.url's scheme, the routes' origin checks) sees them.
      if (!config.trustProxy) stripForwardedHeaders(request);
      // A call another node forwarded is checked by its signature where its body is read (lib/cluster/node-forward).
      const signed = cluster !== null && isSignedNodeCall(request);
      const answer = signed ? ({ kind: "pass" } as const) : gate(
        { method: request.method ?? "GET", url: request.url ?? "/", headers: headerBag(request), encrypted: "encrypted" in request.socket },
        auth,
      );
      if (answer.kind === "redirect") {
        response.writeHead(302, { location: answer.location, "cache-control": "no-store" });
        response.end();
        return;
      }
      if (answer.kind === "refuse") {
        // The body is not read: say so, so the client does not keep sending it on this connection.
        response.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", connection: "close" });
        response.end(JSON.stringify({ error: { code: answer.code, message: answer.message } }));
        return;
      }
      if (handle) {
        void handle(request, response);
        return;
      }
      if (isHealthRequest(request)) {
        response.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
        response.end(request.method === "HEAD" ? undefined : JSON.stringify(healthBody()));
        return;
      }
      void prepareNext().then(
        () => {
          // close() has dropped the connection and stopped the runtime: Next must not run this request.
          if (closing) request.socket.destroy();
          else void handle!(request, response);
        },
        () => {
          if (response.headersSent || response.destroyed) return;
          response.writeHead(500, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
          response.end(JSON.stringify({ error: { code: "internal_error", message: "Atrium's web app could not start; see the server log." } }));
        },
      );
    });
    // Machines dial in over a WebSocket (DESIGN §10b); it authenticates by machine token, not the gate.
    const machineLinks = routeMachineUpgrades(server, () => runtime.machines);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const nextTimer = setTimeout(() => void prepareNext(), NEXT_DELAY_MS);
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    // With port 0 the kernel picked the port: the lock must name the real one for `atrium chat` and `serve stop`.
    if (port !== options.port) lock.update({ port });
    const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
    const url = `http://${hostForUrl}:${port}`;
    const signInUrl = `${url}/signin?token=${encodeURIComponent(token)}`;
    const warning = exposureWarning(options.host);
    if (warning) log(warning);
    const noSandbox = sandboxWarning(sandboxStatus(config.sandbox));
    if (noSandbox) log(noSandbox);
    log(`Atrium is running at ${url}`);
    log(`Sign in: ${signInUrl}`);
    const close = () => {
      closing ??= (async () => {
        clearTimeout(nextTimer);
        runtime.machines.closeAll();
        machineLinks.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await runtime.stop();
        // Next cannot be closed half-prepared: let it finish (or fail) first.
        await preparing?.catch(() => undefined);
        await (app as NextApp | null)?.close?.();
        unregisterRuntime();
        registerCluster(null);
        await cluster?.stop();
        lock.release();
      })();
      return closing;
    };
    return { url, signInUrl, runtime, ready, close };
  } catch (error) {
    if (store) await store.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    lock.release();
    throw error;
  }
}

/** Node headers on a path nodes forward (checked in full, body included, by the route: lib/cluster/node-forward). */
function isSignedNodeCall(request: http.IncomingMessage): boolean {
  if (!request.headers[NODE_HEADER] || !request.headers[SIGNATURE_HEADER]) return false;
  const normalized = normalizeRequestPath(request.url ?? "/");
  return normalized.ok && isForwardedPath(normalized.pathname);
}

/** GET or HEAD of exactly /api/health (a query string is ignored, as Next's router does). */
function isHealthRequest(request: http.IncomingMessage): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const url = request.url ?? "/";
  const end = url.search(/[?#]/);
  return (end === -1 ? url : url.slice(0, end)) === HEALTH_PATH;
}

const FORWARDED_HEADERS = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-forwarded-for", "forwarded"];

function stripForwardedHeaders(request: http.IncomingMessage): void {
  for (const name of FORWARDED_HEADERS) delete request.headers[name];
}

function headerBag(request: http.IncomingMessage) {
  const single = (name: string): string | null => {
    const value = request.headers[name];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  };
  return {
    authorization: single("authorization"),
    cookie: single("cookie"),
    host: single("host"),
    origin: single("origin"),
    "sec-fetch-site": single("sec-fetch-site"),
    "x-forwarded-host": single("x-forwarded-host"),
    "x-forwarded-proto": single("x-forwarded-proto"),
  };
}

async function main(): Promise<void> {
  const home = defaultHome();
  const host = process.env.HOST || "127.0.0.1";
  const port = Number(process.env.PORT || 3000);
  const server = await startServer({ home, host, port, dev: process.env.NODE_ENV === "development" });
  server.ready.catch(async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    await server.close();
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    console.log(`Received ${signal}; stopping Atrium`);
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
