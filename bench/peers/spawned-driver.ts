import type { ChildProcess } from "node:child_process";
import type { Sink } from "./driver";
import { killTree, stopChild } from "./process";

/**
 * What the two peers' drivers share: a native binary run as a child, and a first turn that
 * `create` waits out on the system's own turn-end signal (which the Sink also gets).
 */
export abstract class SpawnedDriver {
  protected child: ChildProcess | null = null;
  private firstTurns = new Map<string, (error: string | null) => void>();

  constructor(
    readonly label: string,
    protected readonly binary: string,
    protected readonly fakeUrl: string,
    protected readonly sink: Sink,
  ) {}

  get pid(): number {
    return this.child!.pid!;
  }

  /** Registers before the first message is sent, so its end cannot be missed. */
  protected firstTurn(conversationId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.firstTurns.set(conversationId, (error) => (error ? reject(new Error(`${this.label}, first turn: ${error}`)) : resolve()));
    });
  }

  /** A turn ended (`error` null when it completed): to a waiting `create`, then to the Sink. */
  protected turnEnded(conversationId: string, micros: number, error: string | null): void {
    this.firstTurns.get(conversationId)?.(error);
    this.firstTurns.delete(conversationId);
    this.sink.ended(conversationId, micros, error);
  }

  async kill(): Promise<void> {
    await killTree(this.child!);
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child);
  }
}
