import type { AuthContext } from "../auth/session";
import type { SessionBook } from "../auth/session-store";
import type { Runtime } from "./runtime";

/**
 * The Runtime lives on globalThis: Next bundles route handlers, pages and server actions
 * separately from server.ts, and a module-level singleton would exist once per bundle.
 */
const RUNTIME_KEY = Symbol.for("atrium.runtime");
const TOKEN_KEY = Symbol.for("atrium.token");
const AUTH_KEY = Symbol.for("atrium.auth");

interface RegisteredAuth {
  sessions: SessionBook;
  trustProxy: boolean;
}

type Registry = { [RUNTIME_KEY]?: Runtime; [TOKEN_KEY]?: string; [AUTH_KEY]?: RegisteredAuth };

export function registerRuntime(runtime: Runtime, token: string, auth?: RegisteredAuth): void {
  const registry = globalThis as Registry;
  registry[RUNTIME_KEY] = runtime;
  registry[TOKEN_KEY] = token;
  if (auth) registry[AUTH_KEY] = auth;
}

export function unregisterRuntime(): void {
  const registry = globalThis as Registry;
  delete registry[RUNTIME_KEY];
  delete registry[TOKEN_KEY];
  delete registry[AUTH_KEY];
}

export function getRuntime(): Runtime {
  const runtime = (globalThis as Registry)[RUNTIME_KEY];
  if (!runtime) throw new Error("The Atrium runtime is not started: run Atrium through server.ts (npm start)");
  return runtime;
}

export function getAccessToken(): string {
  const token = (globalThis as Registry)[TOKEN_KEY];
  if (!token) throw new Error("The Atrium runtime is not started: run Atrium through server.ts (npm start)");
  return token;
}

export function getSessionStore(): SessionBook {
  const auth = (globalThis as Registry)[AUTH_KEY];
  if (!auth) throw new Error("The Atrium runtime is not started: run Atrium through server.ts (npm start)");
  return auth.sessions;
}

/** No browser session is valid where none were registered (a runtime registered by a bench or a harness: Bearer only). */
const NO_SESSIONS = { verify: () => false };

/** The token, the browser sessions and whether forwarded headers count: what every request is checked against. */
export function getAuthContext(): AuthContext {
  const auth = (globalThis as Registry)[AUTH_KEY];
  return { token: getAccessToken(), sessions: auth?.sessions ?? NO_SESSIONS, trustProxy: auth?.trustProxy ?? false };
}
