import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { backendEnv } from "./postgres-backend";

export const TEST_TOKEN = "test-token-0123456789-abcdefghijklmn";
const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface ServerProcess {
  url: string;
  token: string;
  child: ChildProcess;
  output(): string;
  /** fetch with the token already set. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the real custom server (server.ts, production build) as its own process on a free
 * port against `home`, and resolves once it prints that it is listening.
 */
export async function startServerProcess(home: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  // A cluster node of its own test (env has ATRIUM_DATABASE_URL) keeps it; else the suite's backend.
  const backend = env.ATRIUM_DATABASE_URL ? {} : await backendEnv(home);
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ATRIUM_HOME: home, ATRIUM_TOKEN: TEST_TOKEN, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "production", ...backend, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Atrium is running at (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url,
    token: env.ATRIUM_TOKEN ?? TEST_TOKEN,
    child,
    output: () => output,
    api: (pathname, init = {}) =>
      fetch(`${url}${pathname}`, {
        ...init,
        headers: { authorization: `Bearer ${env.ATRIUM_TOKEN ?? TEST_TOKEN}`, "content-type": "application/json", ...(init.headers ?? {}) },
      }),
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
