import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { ClientMessage, ConnectRequest, Receipts } from "./client-process";

const CLIENT_SCRIPT = path.join(import.meta.dirname, "client-process.ts");
const ROUND_TIMEOUT_MS = 60_000;

export interface Streams {
  /** Resolves once every stream has received its first bytes. */
  ready: Promise<void>;
  /** Resolves when every stream has its deltas (or saw turn.ended). */
  done: Promise<Receipts>;
}

/** The parent's handle on the SSE client process. */
export class SseClients {
  private constructor(private readonly child: ChildProcess) {}

  static start(): SseClients {
    const child = fork(CLIENT_SCRIPT, [], {
      execArgv: ["--import", "tsx"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new SseClients(child);
  }

  connect(request: Omit<ConnectRequest, "type">): Streams {
    let resolveReady!: () => void;
    let resolveDone!: (receipts: Receipts) => void;
    let reject!: (error: Error) => void;
    const ready = new Promise<void>((resolve) => (resolveReady = resolve));
    const done = new Promise<Receipts>((resolve, fail) => {
      resolveDone = resolve;
      reject = fail;
    });
    const timer = setTimeout(() => reject(new Error(`SSE round did not finish within ${ROUND_TIMEOUT_MS} ms`)), ROUND_TIMEOUT_MS);
    const exited = (code: number | null) => reject(new Error(`SSE client process exited (${code})`));
    const listener = (message: ClientMessage) => {
      if (message.type === "ready") return resolveReady();
      clearTimeout(timer);
      this.child.off("message", listener);
      this.child.off("exit", exited);
      if (message.type === "done") resolveDone(message.receipts);
      else reject(new Error(`SSE client: ${message.message}`));
    };
    this.child.on("message", listener);
    this.child.once("exit", exited);
    this.child.send({ type: "connect", ...request } satisfies ConnectRequest);
    // A failure before the streams open must not leave `ready` waiting forever.
    return { ready: Promise.race([ready, done.then(() => undefined)]), done };
  }

  close(): void {
    if (this.child.connected) this.child.send({ type: "exit" });
  }
}
