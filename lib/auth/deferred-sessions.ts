import { sessionIdFrom } from "./session";
import type { SessionBook, SessionView } from "./session-store";

/**
 * A cluster node's sessions before it has joined the cluster (server.ts listens first): every
 * call waits for the database's store (`use`), and the gate's `prepare` too, so a browser's
 * request during the start is checked against the real sessions instead of being signed out.
 */
export class DeferredSessions implements SessionBook {
  private target: SessionBook | null = null;
  private settle!: (target: SessionBook | null) => void;
  private readonly ready = new Promise<SessionBook | null>((resolve) => (this.settle = resolve));

  /** The store to use from now on (null: the node did not start; nothing verifies). */
  use(target: SessionBook | null): void {
    this.target = target;
    this.settle(target);
  }

  verify(sessionId: string): boolean {
    return this.target?.verify(sessionId) ?? false;
  }

  async prepare(sessionId: string | null): Promise<void> {
    await (await this.ready)?.prepare?.(sessionId);
  }

  async create(browser: string | null | undefined): Promise<string> {
    return (await this.started()).create(browser);
  }

  async delete(sessionId: string | null | undefined): Promise<void> {
    await (await this.started()).delete(sessionId);
  }

  async deleteAll(): Promise<void> {
    await (await this.started()).deleteAll();
  }

  async list(currentSessionId: string | null | undefined): Promise<SessionView[]> {
    return (await this.started()).list(currentSessionId);
  }

  private async started(): Promise<SessionBook> {
    const target = await this.ready;
    if (!target) throw new Error("this node did not join its cluster: it has no sessions");
    return target;
  }
}

/**
 * Runs `then` (the gate and what follows) once the request's cookie is known to be a session or
 * not: at once on a single node, after a lookup on a cluster node that has not heard of it yet.
 */
export function whenSessionKnown(sessions: SessionBook, headers: { authorization?: string; cookie?: string }, then: () => void): void {
  if (!sessions.prepare || headers.authorization?.startsWith("Bearer ")) return then();
  const sessionId = sessionIdFrom(headers);
  if (sessionId === null) return then();
  // A lookup that fails (the database away) leaves the cookie unknown: the gate signs it out.
  void sessions.prepare(sessionId).catch(() => undefined).then(then);
}
