import crypto from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { BROWSER_LIMIT, hashOf, LAST_SEEN_WRITE_INTERVAL_MS, sessionViews, type SessionBook, type SessionView, type StoredSession } from "../auth/session-store";
import type { RecordFeed } from "../store/postgres/record-feed";
import { SESSION_CHANNEL } from "../store/postgres/schema";

/** How long "no such session" is believed for a cookie, so a revoked cookie sent again costs no query each time. */
const UNKNOWN_KEPT_MS = 2_000;
const UNKNOWN_LIMIT = 10_000;
/** The longest a sign-out whose notice never arrived is still accepted on a node. */
const RELOAD_EVERY_MS = 30_000;

const noticeSchema = z.union([
  z.object({ op: z.enum(["add", "del"]), h: z.string().regex(/^[0-9a-f]{64}$/) }),
  z.object({ op: z.literal("all") }),
]);

interface SessionRow {
  hash: string;
  created_at: string;
  last_seen_at: string;
  browser: string;
}

/**
 * The browser sessions of a cluster (DESIGN §10, §10c): in `atrium_sessions`, hashes only, as the
 * file keeps them on one node. Each node keeps the set of live hashes in memory, so the gate's
 * check stays synchronous and costs no query: a session made, ended or "signed out everywhere" on
 * any node is announced on SESSION_CHANNEL at commit and every node applies it when it hears it
 * (revocation reaches every node within the notice's delivery, milliseconds). A cookie a node has
 * not heard of yet (made on another node a moment ago) is looked up once (`prepare`, before the
 * gate); after the listening connection was lost the set is read again whole. lastSeenAt is
 * written at most once a minute per session and node, as the file does.
 */
export class ClusterSessions implements SessionBook {
  /** hash → the lastSeenAt this node last saw, and when it last wrote it. */
  private readonly live = new Map<string, { lastSeenAt: string; written: number }>();
  private readonly unknown = new Map<string, number>();
  /** Bumped at each ending heard: a lookup that raced an ending reads again. */
  private endings = 0;
  /** Bumped at each session made here: a whole read that raced one reads again (it may predate it). */
  private creations = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly log: (message: string) => void,
    private readonly now: () => number,
  ) {}

  static async start(options: { pool: pg.Pool; feed: RecordFeed; log: (message: string) => void; now?: () => number }): Promise<ClusterSessions> {
    const sessions = new ClusterSessions(options.pool, options.log, options.now ?? Date.now);
    await options.feed.onChannel(SESSION_CHANNEL, (payload) => sessions.heard(payload));
    options.feed.onResync(() => void sessions.reload().catch((error: unknown) => options.log(`sessions: could not read them again: ${String(error)}`)));
    await sessions.reload();
    // A listening connection can stall without being seen lost (a half-open socket): the set is
    // read again every RELOAD_EVERY_MS too, which bounds how long a missed sign-out is accepted.
    const reread = setInterval(() => {
      if (options.pool.ended) return clearInterval(reread);
      sessions.reload().catch((error: unknown) => options.log(`sessions: could not read them again: ${String(error)}`));
    }, RELOAD_EVERY_MS);
    reread.unref();
    return sessions;
  }

  async create(browser: string | null | undefined): Promise<string> {
    const sessionId = crypto.randomBytes(32).toString("base64url");
    const hash = hashOf(sessionId);
    const at = new Date(this.now()).toISOString();
    await this.pool.query(
      `WITH made AS (INSERT INTO atrium_sessions (hash, created_at, last_seen_at, browser) VALUES ($1, $2, $2, $3) RETURNING hash)
       SELECT pg_notify('${SESSION_CHANNEL}', json_build_object('op', 'add', 'h', hash)::text) FROM made`,
      [hash, at, (browser ?? "").slice(0, BROWSER_LIMIT)],
    );
    this.live.set(hash, { lastSeenAt: at, written: this.now() });
    this.creations += 1;
    return sessionId;
  }

  verify(sessionId: string): boolean {
    if (!sessionId) return false;
    const hash = hashOf(sessionId);
    const session = this.live.get(hash);
    if (!session) return false;
    const now = this.now();
    session.lastSeenAt = new Date(now).toISOString();
    if (now - session.written >= LAST_SEEN_WRITE_INTERVAL_MS) {
      session.written = now;
      this.pool
        .query("UPDATE atrium_sessions SET last_seen_at = greatest(last_seen_at, $2) WHERE hash = $1", [hash, session.lastSeenAt])
        .catch((error: unknown) => this.log(`sessions: could not note a session's last use: ${String(error)}`));
    }
    return true;
  }

  async prepare(sessionId: string | null): Promise<void> {
    if (!sessionId) return;
    const hash = hashOf(sessionId);
    if (this.live.has(hash) || (this.unknown.get(hash) ?? 0) > this.now()) return;
    const endings = this.endings;
    const rows = await this.pool.query<SessionRow>("SELECT hash, last_seen_at FROM atrium_sessions WHERE hash = $1", [hash]);
    if (this.endings !== endings) return this.prepare(sessionId);
    const row = rows.rows[0];
    if (row) {
      this.live.set(hash, { lastSeenAt: row.last_seen_at, written: this.now() });
      return;
    }
    if (this.unknown.size >= UNKNOWN_LIMIT) this.unknown.clear();
    this.unknown.set(hash, this.now() + UNKNOWN_KEPT_MS);
  }

  async delete(sessionId: string | null | undefined): Promise<void> {
    if (!sessionId) return;
    const hash = hashOf(sessionId);
    this.ended(hash);
    await this.pool.query(
      `WITH gone AS (DELETE FROM atrium_sessions WHERE hash = $1 RETURNING hash)
       SELECT pg_notify('${SESSION_CHANNEL}', json_build_object('op', 'del', 'h', hash)::text) FROM gone`,
      [hash],
    );
  }

  async deleteAll(): Promise<void> {
    this.ended(null);
    await this.pool.query(
      `WITH gone AS (DELETE FROM atrium_sessions RETURNING hash)
       SELECT pg_notify('${SESSION_CHANNEL}', json_build_object('op', 'all')::text) FROM (SELECT count(*) FROM gone) AS counted`,
    );
  }

  /** Every node's sessions, with the latest lastSeenAt this node or the table knows. */
  async list(currentSessionId: string | null | undefined): Promise<SessionView[]> {
    const rows = await this.pool.query<SessionRow>("SELECT hash, created_at, last_seen_at, browser FROM atrium_sessions");
    const stored: StoredSession[] = rows.rows.map((row) => {
      const seenHere = this.live.get(row.hash)?.lastSeenAt ?? "";
      return { hash: row.hash, createdAt: row.created_at, lastSeenAt: seenHere > row.last_seen_at ? seenHere : row.last_seen_at, browser: row.browser };
    });
    return sessionViews(stored, currentSessionId);
  }

  private heard(payload: string): void {
    let notice: z.infer<typeof noticeSchema>;
    try {
      notice = noticeSchema.parse(JSON.parse(payload));
    } catch {
      this.log(`sessions: ignored a notice it could not read: ${payload}`);
      return;
    }
    if (notice.op === "add") {
      this.unknown.delete(notice.h);
      // Not seen here yet: the table's lastSeenAt stands until this node sees it used.
      if (!this.live.has(notice.h)) this.live.set(notice.h, { lastSeenAt: "", written: this.now() });
    } else this.ended(notice.op === "del" ? notice.h : null);
  }

  /** A session ended (null: all of them). */
  private ended(hash: string | null): void {
    this.endings += 1;
    if (hash === null) this.live.clear();
    else this.live.delete(hash);
  }

  /** The whole set read again (at start, and after notices may have been missed). */
  private async reload(): Promise<void> {
    const [endings, creations] = [this.endings, this.creations];
    const rows = await this.pool.query<SessionRow>("SELECT hash, last_seen_at FROM atrium_sessions");
    if (this.endings !== endings || this.creations !== creations) return this.reload();
    const present = new Set(rows.rows.map((row) => row.hash));
    for (const hash of this.live.keys()) if (!present.has(hash)) this.live.delete(hash);
    for (const row of rows.rows) if (!this.live.has(row.hash)) this.live.set(row.hash, { lastSeenAt: row.last_seen_at, written: this.now() });
  }
}
