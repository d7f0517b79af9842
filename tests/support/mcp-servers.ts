import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** The real servers from npm (dev dependencies), started with `node` the way a user's config would. */
export const EVERYTHING_SERVER = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM_SERVER = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

export function everythingStdio(extraArgs: string[] = []): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING_SERVER, "stdio", ...extraArgs] };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** server-everything over Streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(port?: number): Promise<{ url: string; port: number; child: ChildProcess; stop(): Promise<void> }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
    env: { NODE_ENV: "production", PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.resume();
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${seen}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${seen}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
