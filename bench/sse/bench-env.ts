import { withTempDirectory } from "../support/temp-directory";
import { SseClients } from "./client";
import { startEchoServer, type EchoServer } from "./echo-server";
import { startRuntimeServer, type RuntimeServer } from "./runtime-server";

export interface SseBench {
  runtime: RuntimeServer;
  bare: EchoServer;
  sseEcho: EchoServer;
  clients: SseClients;
}

/** Every server on 127.0.0.1 in this process, the clients in a child process; all torn down after. */
export function withSseBench<T>(work: (bench: SseBench) => Promise<T>): Promise<T> {
  return withTempDirectory("atrium-bench-sse-", async (home) => {
    const runtime = await startRuntimeServer(home);
    const bare = await startEchoServer("bare");
    const sseEcho = await startEchoServer("sse-response");
    const clients = SseClients.start();
    try {
      return await work({ runtime, bare, sseEcho, clients });
    } finally {
      clients.close();
      await Promise.all([bare.close(), sseEcho.close()]);
      await runtime.close();
    }
  });
}
