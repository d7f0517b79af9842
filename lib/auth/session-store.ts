import crypto from "node:crypto";
import { readFileIfPresent, writePrivateFileAtomically } from "../store/private-file";

/** How often a session's lastSeenAt may be written: a busy page does not rewrite the file every request. */
export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;
export const BROWSER_LIMIT = 200;

export interface StoredSession {
  hash: string;
  createdAt: string;
  lastSeenAt: string;
  browser: string;
}

export interface SessionView {
  /** The first 16 hex characters of the hash: enough to tell sessions apart, useless as a credential. */
  id: string;
  browser: string;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

/** What the gate needs: is this cookie value a live session? */
export interface SessionLookup {
  verify(sessionId: string): boolean;
}

/**
 * Every kind of session store the server may hold: the file (a single node) or the cluster's
 * table (lib/cluster/cluster-sessions.ts). The callers await what may be asynchronous.
 */
export interface SessionBook extends SessionLookup {
  create(browser: string | null | undefined): string | Promise<string>;
  delete(sessionId: string | null | undefined): void | Promise<void>;
  deleteAll(): void | Promise<void>;
  list(currentSessionId: string | null | undefined): SessionView[] | Promise<SessionView[]>;
  /** Before the gate's synchronous `verify`: a cookie this node has not heard of yet is looked up (cluster). */
  prepare?(sessionId: string | null): Promise<void>;
}

export function hashOf(sessionId: string): string {
  return crypto.createHash("sha256").update(sessionId).digest("hex");
}

/** Sessions as the API lists them: the most recently seen first, the asking one marked. */
export function sessionViews(sessions: Iterable<StoredSession>, currentSessionId: string | null | undefined): SessionView[] {
  const current = currentSessionId ? hashOf(currentSessionId) : null;
  return [...sessions]
    .sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))
    .map((session) => ({
      id: session.hash.slice(0, 16),
      browser: session.browser,
      createdAt: session.createdAt,
      lastSeenAt: session.lastSeenAt,
      current: session.hash === current,
    }));
}

/**
 * Browser sign-in sessions (DESIGN §10, issue 21 finding 5). Each sign-in gets a random
 * 32-byte id; only its SHA-256 is kept, in `$ATRIUM_HOME/sessions.json` (mode 0600,
 * written by temp + rename). The file is read once at start and kept in memory.
 */
export class SessionStore implements SessionBook {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly filePath: string,
    private readonly now: () => number = Date.now,
  ) {
    this.load();
  }

  /** Starts a session; the returned id goes in the cookie and is never stored. */
  create(browser: string | null | undefined): string {
    const sessionId = crypto.randomBytes(32).toString("base64url");
    const at = new Date(this.now()).toISOString();
    const hash = hashOf(sessionId);
    this.sessions.set(hash, { hash, createdAt: at, lastSeenAt: at, browser: (browser ?? "").slice(0, BROWSER_LIMIT) });
    this.lastWritten.set(hash, this.now());
    this.save();
    return sessionId;
  }

  verify(sessionId: string): boolean {
    if (!sessionId) return false;
    const hash = hashOf(sessionId);
    const session = this.sessions.get(hash);
    if (!session) return false;
    const now = this.now();
    session.lastSeenAt = new Date(now).toISOString();
    if (now - (this.lastWritten.get(hash) ?? 0) >= LAST_SEEN_WRITE_INTERVAL_MS) {
      this.lastWritten.set(hash, now);
      this.save();
    }
    return true;
  }

  /** Sign-out: the session ends on the server, so a copy of the cookie is worthless. */
  delete(sessionId: string | null | undefined): void {
    if (!sessionId) return;
    const hash = hashOf(sessionId);
    if (this.sessions.delete(hash)) {
      this.lastWritten.delete(hash);
      this.save();
    }
  }

  /** "Sign out everywhere". */
  deleteAll(): void {
    this.sessions.clear();
    this.lastWritten.clear();
    this.save();
  }

  list(currentSessionId: string | null | undefined): SessionView[] {
    return sessionViews(this.sessions.values(), currentSessionId);
  }

  /** Every session as kept (hashes only): what `atrium migrate` copies into a cluster. */
  stored(): StoredSession[] {
    return [...this.sessions.values()];
  }

  private load(): void {
    const text = readFileIfPresent(this.filePath);
    if (text === null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A damaged file signs everyone out rather than stopping the server.
      return;
    }
    const list = (parsed as { sessions?: unknown }).sessions;
    if (!Array.isArray(list)) return;
    for (const entry of list as Array<Partial<StoredSession>>) {
      if (typeof entry?.hash !== "string" || !/^[0-9a-f]{64}$/.test(entry.hash)) continue;
      const createdAt = typeof entry.createdAt === "string" ? entry.createdAt : new Date(this.now()).toISOString();
      this.sessions.set(entry.hash, {
        hash: entry.hash,
        createdAt,
        lastSeenAt: typeof entry.lastSeenAt === "string" ? entry.lastSeenAt : createdAt,
        browser: typeof entry.browser === "string" ? entry.browser.slice(0, BROWSER_LIMIT) : "",
      });
    }
  }

  private save(): void {
    writePrivateFileAtomically(this.filePath, `${JSON.stringify({ version: 1, sessions: [...this.sessions.values()] }, null, 2)}\n`);
  }
}
