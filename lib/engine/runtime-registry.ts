import type { Runtime } from "./runtime";

/**
 * The Runtime lives on globalThis: Next bundles route handlers, pages and server actions
 * separately from server.ts, and a module-level singleton would exist once per bundle.
 */
const RUNTIME_KEY = Symbol.for("atrium.runtime");
const TOKEN_KEY = Symbol.for("atrium.token");

type Registry = { [RUNTIME_KEY]?: Runtime; [TOKEN_KEY]?: string };

export function registerRuntime(runtime: Runtime, token: string): void {
  const registry = globalThis as Registry;
  registry[RUNTIME_KEY] = runtime;
  registry[TOKEN_KEY] = token;
}

export function unregisterRuntime(): void {
  const registry = globalThis as Registry;
  delete registry[RUNTIME_KEY];
  delete registry[TOKEN_KEY];
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
