import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface RunningServer {
  url: string;
  /** Settles once the whole app is served; rejects if it cannot start. */
  ready?: Promise<void>;
  close(): Promise<void>;
}

export type StartServer = (options: { home: string; host: string; port: number; dev?: boolean }) => Promise<RunningServer>;

/** `true` in the bundle bin/bundle.mjs builds (esbuild's `define`); not defined when run through tsx. */
declare const __ATRIUM_BUNDLE__: boolean | undefined;

/**
 * Loads `startServer` from the checkout's server.ts: the one process entry the CLI and `npm run dev`
 * share. The bundled CLI loads the bundled server.ts, built beside it from the same sources.
 */
export async function loadStartServer(projectRoot: string): Promise<StartServer> {
  const bundled = typeof __ATRIUM_BUNDLE__ !== "undefined" && __ATRIUM_BUNDLE__;
  const entry = bundled ? fileURLToPath(new URL("./server.mjs", import.meta.url)) : path.join(projectRoot, "server.ts");
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing`);
  const loaded: unknown = await import(pathToFileURL(entry).href);
  const startServer = typeof loaded === "object" && loaded !== null ? Reflect.get(loaded, "startServer") : undefined;
  if (typeof startServer !== "function") throw new Error(`${entry} does not export startServer`);
  return startServer as StartServer;
}
