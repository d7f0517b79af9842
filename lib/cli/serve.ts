import { ensureHome, UsageError, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";
import { buildIfMissing } from "./next-build";
import { releaseStartMemory, START_QUIET_MS } from "./release-start-memory";
import { runServeStop } from "./serve-stop";
import { loadStartServer } from "./server-entry";

/**
 * node:util taken without an ESM import: an import builds its namespace from every export, and
 * the lazy ones load worker_threads, assert's diff and more, which a server never uses.
 */
const { parseArgs } = process.getBuiltinModule("node:util");

/** `atrium serve [--host H] [--port P] [--build-if-missing]` and `atrium serve stop`. */
export async function runServe(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "build-if-missing": { type: "boolean" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals[0] === "stop") {
    if (positionals.length > 1 || Object.keys(values).length > 0) throw new UsageError("serve stop takes no options");
    return runServeStop(context);
  }
  if (positionals.length > 0) throw new UsageError(`unknown serve argument "${positionals[0]}"`);
  const host = values.host ?? (context.env.HOST || "127.0.0.1");
  const port = parsePort(values.port ?? (context.env.PORT || "3000"));

  if (values["build-if-missing"]) await buildIfMissing(context);
  // React and Next pick their production builds by NODE_ENV when first loaded.
  (process.env as Record<string, string | undefined>).NODE_ENV ??= "production";
  ensureHome(context);
  // Listen before starting, so a SIGTERM during start-up still closes the server (and its lock).
  const stopSignal = untilStopSignal();
  const startServer = await loadStartServer(context.projectRoot);
  const server = await startServer({ home: context.home, host, port, dev: false });
  // Once the requests that waited for recovery have had their answers and the start has gone quiet.
  setTimeout(releaseStartMemory, START_QUIET_MS).unref();
  const notReady = new Promise<{ error: unknown }>((resolve) => void server.ready?.catch((error: unknown) => resolve({ error })));
  const signal = await Promise.race([stopSignal, notReady]);
  if (typeof signal !== "string") {
    await server.close();
    throw signal.error;
  }
  context.print(`Stopping Atrium (${signal})…`);
  await server.close();
  context.print("Atrium stopped.");
  return EXIT_DONE;
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`"${value}" is not a port number`);
  return port;
}

/** Resolves on the first SIGINT or SIGTERM; a second one gets Node's default (exit at once). */
function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
