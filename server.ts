import fs from "node:fs";
import type * as http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { API_ROUTES } from "./app/api/api-routes";
import { ApiRouter } from "./lib/api/api-router";
import { holdUpgrades } from "./lib/api/held-upgrades";
import { HEALTH_PATH, healthBody } from "./lib/api/health";
import { routerAnswer, serveWebHandler, writeAnswer } from "./lib/api/node-bridge";
import { exposureWarning } from "./lib/auth/exposure-warning";
import { sandboxStatus, sandboxWarning } from "./lib/sandbox/sandbox-status";
import { gate } from "./lib/auth/gate";
import { normalizeRequestPath } from "./lib/auth/request-path";
import { SessionStore } from "./lib/auth/session-store";
import { DeferredSessions, whenSessionKnown } from "./lib/auth/deferred-sessions";
import { assertTokenStrength, loadOrCreateToken } from "./lib/auth/token";
import type { AtriumConfig } from "./lib/config/config";
import { loadConfig } from "./lib/config/config";
import type { Runtime } from "./lib/engine/runtime";
import { registerRuntime, unregisterRuntime } from "./lib/engine/runtime-registry";
import { acquireLock } from "./lib/store/lock";
import { dataPaths, defaultHome } from "./lib/store/paths";
import type { Store } from "./lib/store/store";
import { applySecurityHeaders } from "./lib/api/security-headers";
import { releaseStartMemory, START_QUIET_MS } from "./lib/cli/release-start-memory";
import type { ClusterBoot } from "./lib/cluster/cluster-boot";
import { databaseUrlOf } from "./lib/cluster/database-url";
import { registerCluster } from "./lib/cluster/cluster-registry";
import { isForwardedPath } from "./lib/cluster/node-forward";
import { NODE_HEADER, SIGNATURE_HEADER } from "./lib/auth/cluster-signature";

export interface ServerOptions {
  home: string;
  host: string;
  port: number;
  dev?: boolean;
  log?: (message: string) => void;
  /** For tests: Next starts loading only once this settles, so the server can be seen before Next is ready. */
  beforeNext?: () => Promise<void>;
  /** For tests: the store is opened and recovery run only once this settles (the server already listens). */
  beforeRecovery?: () => Promise<void>;
}

export interface RunningServer {
  url: string;
  signInUrl: string;
  runtime: Runtime;
  /**
   * Settles once Next is prepared, which starts at the first request for a page (never for
   * the API). Rejects if Next cannot start; close() is still the caller's.
   */
  ready: Promise<void>;
  close(): Promise<void>;
}

type NextApp = ReturnType<typeof import("next").default>;
type RequestHandler = ReturnType<NextApp["getRequestHandler"]>;

const PROJECT_ROOT = import.meta.dirname;

/**
 * node:http, taken without an ESM import: on Node 22+ `import "node:http"` builds the module's
 * namespace from every export, and the lazy `WebSocket`/`CloseEvent`/`MessageEvent` getters load
 * undici (and http2) with it, ~35-55 ms of a Node 24 start before anything is answered.
 */
const { createServer } = process.getBuiltinModule("node:http");

/**
 * The process entry (DESIGN §1): take the data-directory lock, listen, open the store and
 * recover, put the Runtime on globalThis, then answer. Nothing is answered before recovery is
 * done (requests wait), so /api/health answering 200 means no turn is left from before; the
 * port is taken early only so that clients wait instead of being refused. The Runtime's code
 * is loaded after listening.
 *
 * The API (`/api/*`) is served by the route handlers of app/api through lib/api/api-router.ts,
 * without Next. Next (about 35 MiB and most of a cold start's CPU) is loaded at the first
 * request for anything else: a page, a static asset, a server action.
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
  let server: http.Server | null = null;
  let cluster: ClusterBoot | null = null;
  // DESIGN §10c: with a database URL this server is a node of a cluster; without, files as always.
  const databaseUrl = databaseUrlOf(config);
  try {
    const token = loadOrCreateToken(paths.token);
    // DESIGN §10c: a cluster node's sessions are the database's (hashes only), once it has joined.
    const sessions = databaseUrl ? new DeferredSessions() : new SessionStore(paths.sessions);
    const auth = { token, sessions, trustProxy: config.trustProxy };
    let settleRecovered!: (recovered: boolean) => void;
    const recovered = new Promise<boolean>((resolve) => (settleRecovered = resolve));
    const upgrades = holdUpgrades();
    const next = nextLoader(options, () => upgrades.install());
    const router = new ApiRouter(API_ROUTES);
    let origin = "";
    let closing: Promise<void> | null = null;
    server = createServer((request, response) => {
      // One place for every answer's security headers: the gate's, health's, the API's and Next's.
      applySecurityHeaders(request, response);
      // Anyone can send X-Forwarded-*: without a configured proxy they are dropped here, so
      // neither the gate nor a route (request.url's scheme, the routes' origin checks) sees them.
      if (!config.trustProxy) stripForwardedHeaders(request);
      // A cluster node first looks up a cookie made on another node that it has not heard of yet.
      whenSessionKnown(sessions, request.headers, () => {
        // A call another node forwarded is checked by its signature where its body is read (lib/cluster/node-forward).
        const signed = databaseUrl !== null && isSignedNodeCall(request);
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
        void recovered.then((ok) => {
          // Recovery failed (startServer rejects) or close() began: nothing may answer this request.
          if (!ok || closing) return void request.socket.destroy();
          if (isHealthRequest(request)) return answerHealth(request, response);
          const pathname = apiPathname(request.url ?? "/");
          if (pathname !== null) return void serveApi(router, request, response, origin, pathname);
          void next.serve(request, response, () => closing !== null);
        });
      });
    });
    upgrades.attach(server);
    await new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(options.port, options.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    // With port 0 the kernel picked the port: the lock must name the real one for `atrium chat` and `serve stop`.
    if (port !== options.port) lock.update({ port });
    const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
    const url = `http://${hostForUrl}:${port}`;
    origin = url;

    let runtime: Runtime;
    try {
      await options.beforeRecovery?.();
      ({ store, runtime, cluster } = await openRuntime(options, { config, log, databaseUrl, port }));
      if (sessions instanceof DeferredSessions) sessions.use(cluster!.sessions);
      registerRuntime(runtime, token, { sessions, trustProxy: config.trustProxy });
      if (cluster) registerCluster({ nodeId: cluster.node.id, nodeUrl: cluster.node.url, signatures: cluster.signatures, nodes: cluster.node.nodes });
    } catch (error) {
      if (sessions instanceof DeferredSessions) sessions.use(null);
      settleRecovered(false);
      throw error;
    }
    // Machines dial in over a WebSocket (DESIGN §10b); it authenticates by machine token, not the gate.
    // Its code (ws included) loads at the first upgrade, or before Next, whichever comes first.
    upgrades.recovered(async () => {
      const { routeMachineUpgrades } = await import("./lib/machines/machine-upgrade");
      return routeMachineUpgrades(server!, () => runtime.machines);
    });
    settleRecovered(true);

    const signInUrl = `${url}/signin?token=${encodeURIComponent(token)}`;
    const warning = exposureWarning(options.host);
    if (warning) log(warning);
    const noSandbox = sandboxWarning(sandboxStatus(config.sandbox));
    if (noSandbox) log(noSandbox);
    log(`Atrium is running at ${url}`);
    log(`Sign in: ${signInUrl}`);
    const listening = server;
    const close = () => {
      closing ??= (async () => {
        runtime.machines.closeAll();
        await upgrades.close();
        listening.closeAllConnections();
        await new Promise<void>((resolve) => listening.close(() => resolve()));
        await runtime.stop();
        await next.close();
        unregisterRuntime();
        registerCluster(null);
        await cluster?.stop();
        lock.release();
      })();
      return closing;
    };
    return { url, signInUrl, runtime, ready: next.ready, close };
  } catch (error) {
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    }
    if (store) await store.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    lock.release();
    throw error;
  }
}

interface RuntimeSetting {
  config: AtriumConfig;
  log: (message: string) => void;
  databaseUrl: string | null;
  /** The port listened on (the node's default ATRIUM_NODE_URL names it). */
  port: number;
}

/**
 * The store and the Runtime, loaded after listening (most of the server's code), then recovery
 * (DESIGN §3). A node of a cluster (DESIGN §10c) first joins it: its records go to the database
 * and its index is the database's replica; the cluster's code (pg included) loads only then.
 */
async function openRuntime(options: ServerOptions, setting: RuntimeSetting): Promise<{ store: Store; runtime: Runtime; cluster: ClusterBoot | null }> {
  const { config, log, databaseUrl } = setting;
  const [{ Store }, { Runtime }] = await Promise.all([import("./lib/store/store"), import("./lib/engine/runtime")]);
  let cluster: ClusterBoot | null = null;
  if (databaseUrl) {
    const { bootCluster } = await import("./lib/cluster/cluster-boot");
    cluster = await bootCluster({ databaseUrl, config, host: options.host, port: setting.port, log });
  }
  let store: Store | null = null;
  try {
    store = new Store(options.home, { log, cluster: cluster?.records, recordKey: cluster?.node.recordKey, files: cluster?.files });
    const placement = cluster ? await cluster.attach(store) : undefined;
    const runtime = new Runtime({ store, config, log, placement, machineRecords: cluster?.machines });
    cluster?.onLost((conversationId) => runtime.cluster?.lost(conversationId));
    cluster?.onChanged((change) => runtime.cluster?.changed(change), () => runtime.bus.listListenerCount > 0);
    await runtime.start();
    return { store, runtime, cluster };
  } catch (error) {
    await store?.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    throw error;
  }
}

function answerHealth(request: http.IncomingMessage, response: http.ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  response.end(request.method === "HEAD" ? undefined : JSON.stringify(healthBody()));
}

/** The normalized path when it is the API's (the gate has already refused one that does not normalize). */
function apiPathname(url: string): string | null {
  const normalized = normalizeRequestPath(url);
  if (!normalized.ok) return null;
  const { pathname } = normalized;
  return pathname === "/api" || pathname.startsWith("/api/") ? pathname : null;
}

async function serveApi(router: ApiRouter, request: http.IncomingMessage, response: http.ServerResponse, origin: string, pathname: string): Promise<void> {
  const rawUrl = request.url ?? "/";
  const queryStart = rawUrl.search(/[?#]/);
  const query = queryStart === -1 ? "" : rawUrl.slice(queryStart).replace(/#.*$/, "");
  // As Next does: no trailing slash on a route (308 to the same path without it).
  if (pathname.length > 1 && pathname.endsWith("/")) {
    response.writeHead(308, { location: `${pathname.replace(/\/+$/, "")}${query}` });
    response.end();
    return;
  }
  const method = (request.method ?? "GET").toUpperCase();
  try {
    const resolution = await router.resolve(method, pathname);
    if (resolution.kind !== "handler") return await writeAnswer(response, routerAnswer(resolution, method, pathname), method === "HEAD");
    await serveWebHandler(request, response, { url: `${origin}${pathname}${query}`, ...resolution });
  } catch (error) {
    console.error("unexpected error in request", error);
    if (!response.headersSent) {
      response.writeHead(500, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      response.end(JSON.stringify({ error: { code: "internal_error", message: "Something went wrong inside Atrium; see the server log." } }));
    } else response.destroy();
  }
}

/**
 * Next, loaded and prepared at the first request that needs it (a page, an asset, a server
 * action). `beforeLoad` puts the machine link's routing in place first: Next adds an upgrade
 * listener of its own that closes the upgrades it does not know, machine links included.
 */
function nextLoader(options: ServerOptions, beforeLoad: () => Promise<unknown>) {
  let app: NextApp | null = null;
  let handle: RequestHandler | null = null;
  let preparing: Promise<void> | null = null;
  let settleReady!: (prepared: Promise<void>) => void;
  const ready = new Promise<void>((resolve) => (settleReady = resolve));
  ready.catch(() => undefined);
  const prepare = (): Promise<void> => {
    preparing ??= (async () => {
      await options.beforeNext?.();
      await beforeLoad();
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
  return {
    ready,
    async serve(request: http.IncomingMessage, response: http.ServerResponse, closing: () => boolean): Promise<void> {
      if (handle) return void handle(request, response);
      try {
        await prepare();
      } catch {
        if (response.headersSent || response.destroyed) return;
        response.writeHead(500, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
        response.end(JSON.stringify({ error: { code: "internal_error", message: "Atrium's web app could not start; see the server log." } }));
        return;
      }
      // close() has dropped the connection and stopped the runtime: Next must not run this request.
      if (closing()) request.socket.destroy();
      else void handle!(request, response);
    },
    async close(): Promise<void> {
      // Next cannot be closed half-prepared: let it finish (or fail) first.
      await preparing?.catch(() => undefined);
      await (app as NextApp | null)?.close?.();
    },
  };
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
  setTimeout(releaseStartMemory, START_QUIET_MS).unref();
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
