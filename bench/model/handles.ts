import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { ClientCommand, ClientReply, Received } from "./client-process";
import type { FakeModelCommand, FakeModelMessage } from "./fake-model";

/** The parent's handles on the fake model and the SSE client, each its own process. */
const REPLY_TIMEOUT_MS = 60_000;

/** With BENCH_EVENT_LOG set (the peers harness's --event-log), the child logs its GCs too, as role `file` without .ts. */
function forkTs(file: string): ChildProcess {
  const eventLog = process.env.BENCH_EVENT_LOG ? ["--require", path.join(import.meta.dirname, "..", "peers", "event-log.cjs")] : [];
  return fork(path.join(import.meta.dirname, file), [], {
    execArgv: ["--import", "tsx", ...eventLog],
    env: { ...process.env, BENCH_EVENT_ROLE: file.replace(/\.ts$/, "") },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** The next message from `child` for which `pick` answers something, or a rejection on exit, timeout or `failed`. */
function nextMessage<M, T>(child: ChildProcess, pick: (message: M) => T | undefined, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", listener);
      child.off("exit", exited);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what}: no answer within ${REPLY_TIMEOUT_MS} ms`));
    }, REPLY_TIMEOUT_MS);
    const exited = (code: number | null) => {
      cleanup();
      reject(new Error(`${what}: process exited (${code})`));
    };
    const listener = (message: M) => {
      const failed = (message as { type?: string; message?: string }).type === "failed";
      const picked = failed ? undefined : pick(message);
      if (!failed && picked === undefined) return;
      cleanup();
      if (failed) reject(new Error(`${what}: ${(message as { message?: string }).message}`));
      else resolve(picked as T);
    };
    child.on("message", listener);
    child.once("exit", exited);
  });
}

function stopChild(child: ChildProcess, exit: object): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send(exit);
  else child.kill("SIGTERM");
  return exited;
}

export class FakeModel {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeModel> {
    const child = forkTs("fake-model.ts");
    const port = await nextMessage(child, (message: FakeModelMessage) => (message.type === "listening" ? message.port : undefined), "fake model");
    return new FakeModel(child, port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** When each tag's request reached the fake, in monotonic microseconds. */
  async arrivals(): Promise<Record<string, number>> {
    const answer = nextMessage(this.child, (message: FakeModelMessage) => (message.type === "arrivals" ? message.arrivals : undefined), "fake model");
    this.child.send({ type: "arrivals" } satisfies FakeModelCommand);
    return answer;
  }

  /** A full garbage collection in the fake's process, answered once done (see ./collect-garbage.ts). */
  async collectGarbage(): Promise<void> {
    const answer = nextMessage(this.child, (message: FakeModelMessage) => (message.type === "collected" ? true : undefined), "fake model");
    this.child.send({ type: "collect" } satisfies FakeModelCommand);
    await answer;
  }

  stop(): Promise<void> {
    return stopChild(this.child, { type: "exit" } satisfies FakeModelCommand);
  }
}

export class StreamClient {
  private constructor(private readonly child: ChildProcess) {}

  static start(): StreamClient {
    return new StreamClient(forkTs("client-process.ts"));
  }

  private ask<T>(command: ClientCommand, pick: (reply: ClientReply) => T | undefined): Promise<T> {
    const answer = nextMessage(this.child, pick, "SSE client");
    this.child.send(command);
    return answer;
  }

  /** Opens the multiplexed stream and subscribes it to the conversations. */
  open(url: string, token: string, conversationIds: string[]): Promise<void> {
    return this.ask({ type: "open", url, token, conversationIds }, (reply) => (reply.type === "opened" ? true : undefined)).then(() => {});
  }

  /**
   * Arms the client for one turn in each conversation; the returned promise resolves when every
   * one has its `words` and its turn.ended. Resolves itself once the client is armed.
   */
  async expect(conversationIds: string[], words: number): Promise<{ done: Promise<Received> }> {
    const done = nextMessage(this.child, (reply: ClientReply) => (reply.type === "done" ? reply.received : undefined), "SSE client");
    // Keep a failure before anyone awaits `done` from being an unhandled rejection.
    done.catch(() => {});
    await this.ask({ type: "expect", conversationIds, words }, (reply) => (reply.type === "expecting" ? true : undefined));
    return { done };
  }

  /** Streams the prompts straight from the fake model at once: the loopback floor. */
  direct(url: string, prompts: string[]): Promise<Received> {
    return this.ask({ type: "direct", url, prompts }, (reply) => (reply.type === "done" ? reply.received : undefined));
  }

  stop(): Promise<void> {
    return stopChild(this.child, { type: "exit" } satisfies ClientCommand);
  }
}
