import pg from "pg";
import { z } from "zod";
import { lineOrder } from "./postgres-record-store";
import { RECORD_CHANNEL } from "./schema";
import { DATABASE_TYPES } from "./database-json";

/** What atrium_append_records announces on RECORD_CHANNEL: which record exists now, never the record itself. */
export interface RecordNotice {
  conversationId: string;
  stream: string;
  seq: number;
}

/** One record as a follower receives it: its stream ("metadata" or a session id), its seq and the JSON it holds. */
export interface FedRecord {
  conversationId: string;
  stream: string;
  seq: number;
  record: Record<string, unknown>;
}

/** Where a follower starts: the last seq it already has per stream (absent streams from their start), or "now". */
export type FollowFrom = Record<string, number> | "now";

export interface RecordFeedOptions {
  /** Reads of the records a notice names (any pool of the same database). */
  pool: pg.Pool;
  /** Where the listening connection dials (its own connection: LISTEN holds it). */
  connectionString: string;
  log?: (message: string) => void;
  /** Wait before dialling again after the listening connection is lost (doubles up to 5 s). */
  reconnectMs?: number;
}

interface Follower {
  conversationId: string;
  cursors: Map<string, number>;
  deliver: (record: FedRecord) => void;
  /** Reads of this follower run one after another, so each record is delivered once and in order. */
  reading: Promise<void>;
  /** Streams whose read is queued and not started yet ("*": all): a burst of notices costs one read. */
  queued: Set<string>;
  closed: boolean;
}

interface RecordRow {
  stream: string;
  seq: string;
  record: Record<string, unknown>;
}

const MAX_RECONNECT_MS = 5_000;

/** A notice as atrium_append_records sends it. */
const noticeSchema = z.object({ c: z.string().min(1), s: z.string().min(1), q: z.number().int().positive() });

/**
 * The records other nodes write, as they are written (DESIGN §10c): one LISTEN connection per
 * node hears small notices (conversation, stream, seq) and each follower reads the records
 * itself from atrium_records, after the last seq it has of each stream. So a record of any size
 * crosses nodes (NOTIFY carries at most 8 kB, and no record body goes through it), a notice
 * lost to a dropped connection loses nothing (after dialling again every follower reads what it
 * is behind), and a follower sees every record exactly once, in seq order per stream.
 */
export class RecordFeed {
  private client: pg.Client | null = null;
  private readonly followers = new Set<Follower>();
  private readonly noticeListeners = new Set<(notice: RecordNotice) => void>();
  private readonly resyncListeners = new Set<(lostAt: Date) => void>();
  /** When the listening connection was lost (null while it is up): notices since then may be missed. */
  private lostAt: Date | null = null;
  /** Other channels heard on the same connection (sessions): each one's listeners get the payload. */
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** The LISTEN queries onChannel sent, one after another. */
  private listening: Promise<unknown> = Promise.resolve();
  private readonly log: (message: string) => void;

  constructor(private readonly options: RecordFeedOptions) {
    this.log = options.log ?? (() => undefined);
  }

  /** Listens; resolves once notices are heard (records committed after this are never missed). */
  async start(): Promise<void> {
    await this.listen();
  }

  /** The backend pid of the listening connection (null while it is down): what tests cut. */
  get listenerPid(): number | null {
    return (this.client as (pg.Client & { processID?: number }) | null)?.processID ?? null;
  }

  /**
   * Every record of a conversation after `from`, then each new one as it is written, until the
   * returned function is called. Resolves once the records already there have been delivered.
   */
  async follow(conversationId: string, from: FollowFrom, deliver: (record: FedRecord) => void): Promise<() => void> {
    const cursors = from === "now" ? await this.lastSeqs(conversationId) : new Map(Object.entries(from));
    const follower: Follower = { conversationId, cursors, deliver, reading: Promise.resolve(), queued: new Set(), closed: false };
    this.followers.add(follower);
    await this.catchUp(follower);
    return () => {
      follower.closed = true;
      this.followers.delete(follower);
    };
  }

  /** Every notice this node hears (a new conversation, a deletion: the list's news), whatever is followed. */
  onNotice(listener: (notice: RecordNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  /**
   * Hears another channel's notices on the feed's connection (its name a constant of schema.ts).
   * Resolves once they are heard; after a lost connection, onResync says some may be missed.
   */
  async onChannel(channel: string, listener: (payload: string) => void): Promise<void> {
    if (!/^[a-z_]+$/.test(channel) || channel === RECORD_CHANNEL) throw new Error(`not a channel the feed can hear: ${channel}`);
    let listeners = this.channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.channels.set(channel, listeners);
      // One LISTEN at a time on the connection (channels asked for at once would overlap their queries).
      const client = this.client;
      if (client) {
        const listening = this.listening.then(() => client.query(`LISTEN ${channel}`));
        this.listening = listening.catch(() => undefined);
        await listening;
      }
    }
    listeners.add(listener);
  }

  /** Called after the listening connection came back: notices since `lostAt` (this node's clock) may have been missed. */
  onResync(listener: (lostAt: Date) => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    // A read under way delivers nothing more.
    for (const follower of this.followers) follower.closed = true;
    this.followers.clear();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString, types: DATABASE_TYPES });
    client.on("notification", (message) => {
      if (message.channel === RECORD_CHANNEL) return this.heard(message.payload);
      for (const listener of this.channels.get(message.channel) ?? []) listener(message.payload ?? "");
    });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("the listening connection ended")));
    await client.connect();
    await client.query(`LISTEN ${RECORD_CHANNEL}`);
    for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    if (this.stopped) {
      await client.end();
      return;
    }
    this.client = client;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    this.lostAt ??= new Date();
    this.log(`the record feed lost its connection (${error.message}); dialling again`);
    void client.end().catch(() => undefined);
    this.redial(this.options.reconnectMs ?? 100);
  }

  private redial(waitMs: number): void {
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.stopped) return;
      this.listen().then(
        () => this.resync(),
        (error: unknown) => {
          this.log(`the record feed could not dial again: ${String(error)}`);
          this.redial(Math.min(waitMs * 2, MAX_RECONNECT_MS));
        },
      );
    }, waitMs);
    this.reconnectTimer.unref();
  }

  /** Back after a gap: every follower reads what it is behind, and listeners hear they may have missed notices. */
  private resync(): void {
    const lostAt = this.lostAt ?? new Date();
    this.lostAt = null;
    for (const follower of this.followers) void this.catchUp(follower);
    for (const listener of this.resyncListeners) listener(lostAt);
  }

  private heard(payload: string | undefined): void {
    let notice: RecordNotice;
    try {
      const parsed = noticeSchema.parse(JSON.parse(payload ?? ""));
      notice = { conversationId: parsed.c, stream: parsed.s, seq: parsed.q };
    } catch {
      this.log(`the record feed ignored a notice it could not read: ${payload}`);
      return;
    }
    for (const follower of this.followers) {
      if (follower.conversationId !== notice.conversationId) continue;
      if ((follower.cursors.get(notice.stream) ?? 0) >= notice.seq) continue;
      void this.catchUp(follower, notice.stream);
    }
    for (const listener of this.noticeListeners) listener(notice);
  }

  /** Reads (one stream, or all of them) after the follower's cursors, after any read of it under way. */
  private catchUp(follower: Follower, stream?: string): Promise<void> {
    const key = stream ?? "*";
    if (follower.queued.has(key) || follower.queued.has("*")) return follower.reading;
    follower.queued.add(key);
    follower.reading = follower.reading.then(async () => {
      follower.queued.delete(key);
      if (follower.closed) return;
      let rows: RecordRow[];
      try {
        rows = await this.recordsAfter(follower, stream);
      } catch (error) {
        // Read again at the next notice or resync; the cursor has not moved, so nothing is skipped.
        this.log(`the record feed could not read ${follower.conversationId}: ${String(error)}`);
        return;
      }
      for (const row of rows) {
        const seq = Number(row.seq);
        if (follower.closed || (follower.cursors.get(row.stream) ?? 0) >= seq) continue;
        follower.cursors.set(row.stream, seq);
        follower.deliver({ conversationId: follower.conversationId, stream: row.stream, seq, record: lineOrder(row.record) });
      }
    });
    return follower.reading;
  }

  private async recordsAfter(follower: Follower, stream?: string): Promise<RecordRow[]> {
    if (stream !== undefined) {
      const rows = await this.options.pool.query<RecordRow>(
        "SELECT stream, seq, record FROM atrium_records WHERE conversation_id = $1 AND stream = $2 AND seq > $3 ORDER BY seq",
        [follower.conversationId, stream, follower.cursors.get(stream) ?? 0],
      );
      return rows.rows;
    }
    const rows = await this.options.pool.query<RecordRow>(
      `SELECT stream, seq, record FROM atrium_records
        WHERE conversation_id = $1 AND seq > coalesce(($2::jsonb ->> stream)::bigint, 0)
        ORDER BY stream, seq`,
      [follower.conversationId, JSON.stringify(Object.fromEntries(follower.cursors))],
    );
    return rows.rows;
  }

  private async lastSeqs(conversationId: string): Promise<Map<string, number>> {
    const rows = await this.options.pool.query<{ stream: string; seq: string }>(
      "SELECT stream, max(seq) AS seq FROM atrium_records WHERE conversation_id = $1 GROUP BY stream",
      [conversationId],
    );
    return new Map(rows.rows.map((row) => [row.stream, Number(row.seq)]));
  }
}
