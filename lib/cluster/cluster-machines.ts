import type pg from "pg";
import { z } from "zod";
import { AtriumError } from "../errors";
import { byCreation, machineByToken, storedMachineSchema, tokenHash, type MachineBook, type StoredMachine } from "../machines/machine-records";
import type { LinkClaim, LinkMark } from "../machines/machine-records";
import type { RecordFeed } from "../store/postgres/record-feed";
import { MACHINE_CHANNEL } from "../store/postgres/schema";
import { databaseJson } from "../store/postgres/database-json";

const noticeSchema = z.object({ op: z.enum(["put", "del"]), id: z.string().min(1) });

/** How often the live nodes (those seen within a lease) are read: a machine linked to a dead node stops counting as online elsewhere. */
const LIVE_NODES_EVERY_MS = 2_000;

/** The node holding a machine's link, where other nodes reach it (null: it gave no ATRIUM_NODE_URL), and since when (null: not told yet). */
export interface LinkHolder {
  nodeId: string;
  url: string | null;
  connectedAt: string | null;
}

interface MachineRow {
  id: string;
  record: unknown;
  linked_node: string | null;
  linked_at: string | null;
}

const MACHINE_COLUMNS = "id, record, linked_node, linked_at";

/**
 * A cluster's linked machines (DESIGN §10b, §10c) in `atrium_machines`: the record machines.json
 * holds (the token's SHA-256, never the token) and the node holding the machine's link. Every
 * node keeps them in memory (the registry reads synchronously; a machine's token is checked with
 * no query) and hears each change on MACHINE_CHANNEL at commit: a machine added on one node is
 * listed and may dial any node; one removed on any node is cut wherever its link is. Writes go
 * out in order, each with its own outcome (the API answers once its own write is committed). A
 * node takes a machine's link with one conditional statement (`claimLink`), so of two dials of
 * one token to two nodes at the same instant exactly one is let in.
 */
export class ClusterMachines implements MachineBook {
  private readonly machines = new Map<string, StoredMachine>();
  private readonly linkedOn = new Map<string, string>();
  /** When the machine linked to the node holding it (the holder's clock), for every node's view. */
  private readonly linkedAt = new Map<string, string>();
  private readonly removedListeners: Array<(id: string, machine: StoredMachine) => void> = [];
  private readonly changedListeners: Array<(id: string) => void> = [];
  /** Machines whose add this node made and the database refused: dropped on the reload without telling anyone. */
  private readonly refusedHere = new Set<string>();
  /** The nodes seen within a lease, with their addresses; read every LIVE_NODES_EVERY_MS. */
  private liveNodes = new Map<string, string | null>();
  private liveTimer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** Per machine, this node's newest claim of its link: a let-go or mark of an older dial changes nothing. */
  private readonly claims = new Map<string, number>();
  private claimCount = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly nodeId: string,
    private readonly leaseSeconds: number,
    private readonly log: (message: string) => void,
  ) {}

  static async start(options: { pool: pg.Pool; feed: RecordFeed; nodeId: string; leaseSeconds: number; log: (message: string) => void }): Promise<ClusterMachines> {
    const machines = new ClusterMachines(options.pool, options.nodeId, options.leaseSeconds, options.log);
    await options.feed.onChannel(MACHINE_CHANNEL, (payload) => machines.heard(payload));
    options.feed.onResync(() => void machines.reload().catch((error: unknown) => options.log(`machines: could not read them again: ${String(error)}`)));
    await Promise.all([machines.reload(), machines.readLiveNodes()]);
    machines.liveTimer = setInterval(() => {
      void machines.readLiveNodes().catch((error: unknown) => options.log(`machines: could not read the live nodes: ${String(error)}`));
      machines.freeStaleClaims();
    }, LIVE_NODES_EVERY_MS);
    machines.liveTimer.unref();
    return machines;
  }

  /**
   * A node that stops hands its links back (DESIGN §10c): once its queued writes are done, every
   * machine still marked as linked here is let go, so another node may take it at once.
   */
  async stop(): Promise<void> {
    if (this.liveTimer) clearInterval(this.liveTimer);
    this.liveTimer = null;
    this.claims.clear();
    await this.writing;
    await this.pool
      .query(
        `WITH freed AS (UPDATE atrium_machines SET linked_node = NULL, linked_at = NULL WHERE linked_node = $1 RETURNING id)
         SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM freed`,
        [this.nodeId],
      )
      .catch((error: unknown) => this.log(`machines: could not hand this node's links back: ${String(error)}`));
  }

  all(): StoredMachine[] {
    return byCreation(this.machines.values());
  }

  get(id: string): StoredMachine | undefined {
    return this.machines.get(id);
  }

  byName(name: string): StoredMachine | undefined {
    return [...this.machines.values()].find((machine) => machine.name === name);
  }

  byToken(token: string): StoredMachine | undefined {
    return machineByToken(this.machines.values(), token);
  }

  /** A token not known here (added on another node a moment ago): its machine is read from the database. */
  prepareToken(token: string): Promise<void> | null {
    if (this.byToken(token)) return null;
    return this.pool
      .query<MachineRow>(`SELECT ${MACHINE_COLUMNS} FROM atrium_machines WHERE record->>'tokenHash' = $1`, [tokenHash(token)])
      .then((rows) => {
        if (rows.rows[0] && !this.machines.has(rows.rows[0].id)) this.keep(rows.rows[0]);
      })
      .catch((error: unknown) => this.log(`machines: could not look a token up: ${String(error)}`));
  }

  /** Resolves once stored where every node reads it; rejects (node_unavailable) when the database refused this write. */
  put(machine: StoredMachine): Promise<void> {
    // A machine known here is only ever updated: one another node removed a moment ago (its
    // notice not heard yet) must not be written back.
    const known = this.machines.has(machine.id);
    this.machines.set(machine.id, machine);
    const saved = known
      ? "UPDATE atrium_machines SET record = $2 WHERE id = $1 RETURNING id"
      : "INSERT INTO atrium_machines (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record RETURNING id";
    return settled(this.write(
      `WITH saved AS (${saved})
       SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM saved`,
      [machine.id, databaseJson(machine)],
      known ? undefined : machine.id,
    ));
  }

  /** Resolves once removed from the database; rejects (node_unavailable) when the database refused it. */
  remove(id: string): Promise<void> {
    this.machines.delete(id);
    this.linkedOn.delete(id);
    return settled(this.write(
      `WITH gone AS (DELETE FROM atrium_machines WHERE id = $1 RETURNING id)
       SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'del', 'id', id)::text) FROM gone`,
      [id],
    ));
  }

  /**
   * Takes the machine's link for this node in one statement (DESIGN §10c): only while nobody holds
   * it, this node does, or its holder stopped being seen within a lease. Of two nodes claiming at
   * once, the database lets exactly one in. The claim's number ties its let-go and mark to its dial.
   */
  async claimLink(id: string): Promise<LinkClaim> {
    const claim = (this.claimCount += 1);
    this.claims.set(id, claim);
    // In order with this node's other writes: a link let go here a moment ago (a redial) is let go before it is claimed again.
    const claiming = this.writing.then(() =>
      this.pool.query(
        `UPDATE atrium_machines SET linked_node = $2, linked_at = NULL
          WHERE id = $1 AND (linked_node IS NULL OR linked_node = $2 OR linked_node NOT IN
            (SELECT nodes.id FROM atrium_nodes nodes WHERE nodes.last_seen_at > clock_timestamp() - make_interval(secs => $3)))
          RETURNING id`,
        [id, this.nodeId, this.leaseSeconds],
      ),
    );
    this.writing = claiming.then(
      () => undefined,
      () => undefined,
    );
    const claimed = await claiming;
    if ((claimed.rowCount ?? 0) > 0) return { claimed: claim };
    if (this.claims.get(id) === claim) this.claims.delete(id);
    const held = await this.pool.query<{ linked_node: string | null }>("SELECT linked_node FROM atrium_machines WHERE id = $1", [id]);
    // Removed meanwhile (revoked during the claim): the dial is refused as a revoked token is.
    if (!held.rows[0]) return { removed: true };
    return { heldBy: held.rows[0].linked_node ?? "(none: let go a moment ago)" };
  }

  onRemoved(listener: (id: string, machine: StoredMachine) => void): void {
    this.removedListeners.push(listener);
  }

  /**
   * The dial of `claim` became this node's link at `connectedAt`: other nodes hear it. True once
   * marked; false when the claim is no longer this node's (a newer dial here, or another node took
   * it while this one was not seen): the caller cuts the link, so it is never held twice.
   */
  async markLinked(id: string, claim: number, connectedAt: string): Promise<LinkMark> {
    if (this.claims.get(id) !== claim) return "claimed_again";
    const marked = await this.write(
      `WITH marked AS (UPDATE atrium_machines SET linked_at = $3 WHERE id = $1 AND linked_node = $2 RETURNING id)
       SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM marked`,
      [id, this.nodeId, connectedAt],
    ).catch(() => null);
    // The database refused the write (logged): no other node would see the link, so it is cut
    // (its close lets the claim go) and the machine redials.
    if (marked === null) return "refused";
    if (marked === 0) {
      if (this.claims.get(id) === claim) this.claims.delete(id);
      return "claimed_again";
    }
    this.linkedOn.set(id, this.nodeId);
    this.linkedAt.set(id, connectedAt);
    return "linked";
  }

  /** The dial of `claim` let its link go (closed, refused, or cut): unless a newer dial here claimed it since. A failure is logged. */
  letGo(id: string, claim: number): void {
    if (this.claims.get(id) !== claim) return;
    this.claims.delete(id);
    if (this.linkedOn.get(id) === this.nodeId) {
      this.linkedOn.delete(id);
      this.linkedAt.delete(id);
    }
    void this.write(
      `WITH freed AS (UPDATE atrium_machines SET linked_node = NULL, linked_at = NULL WHERE id = $1 AND linked_node = $2 RETURNING id)
       SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM freed`,
      [id, this.nodeId],
    ).catch(() => undefined);
  }

  /**
   * Machines marked in the database as linked here that no dial of this node claims (a let-go
   * whose write failed): let go, so other nodes do not refuse them, nor route to this node, for its life.
   */
  private freeStaleClaims(): void {
    void this.write(
      `WITH freed AS (UPDATE atrium_machines SET linked_node = NULL, linked_at = NULL WHERE linked_node = $1 AND NOT (id = ANY($2::text[])) RETURNING id)
       SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM freed`,
      [this.nodeId, [...this.claims.keys()]],
    ).catch(() => undefined);
  }

  /** The other live node holding the machine's link (null: none, or it is held here). */
  linkedElsewhere(id: string): string | null {
    return this.linkHolder(id)?.nodeId ?? null;
  }

  /** DESIGN §10c: the other live node holding the machine's link, where its conversations' tool calls go (null: none, or here). */
  linkHolder(id: string): LinkHolder | null {
    const node = this.linkedOn.get(id);
    if (!node || node === this.nodeId || !this.liveNodes.has(node)) return null;
    return { nodeId: node, url: this.liveNodes.get(node) ?? null, connectedAt: this.linkedAt.get(id) ?? null };
  }

  /** A machine's record or link changed on another node (or its linking node stopped being seen). */
  onChanged(listener: (id: string) => void): void {
    this.changedListeners.push(listener);
  }

  /**
   * Writes one after another, in the order they were made, each with its own outcome: a failed
   * one is logged, rejects only its own promise (the request that made it answers an error, not
   * success; no other write is marked), and this node's copy is read again from the database,
   * which stays the truth. The next write waits for that reading.
   */
  private write(sql: string, values: unknown[], adding?: string): Promise<number> {
    const outcome = this.writing.then(() => this.pool.query(sql, values).then((result) => result.rowCount ?? 0));
    this.writing = outcome.then(() => undefined, (error: unknown) => {
      if (adding) this.refusedHere.add(adding);
      this.log(`machines: a write to the database failed: ${String(error)}`);
      return this.reload().catch((reread: unknown) => this.log(`machines: could not read the machines again: ${String(reread)}`));
    });
    const refused = this.writing.then(() => outcome).catch((error: unknown) => {
      throw new AtriumError("node_unavailable", `the machines could not be saved to the database (${String(error)}); nothing changed, try again`);
    });
    // A caller that does not wait for its write (a link's mark) leaves no unhandled rejection.
    refused.catch(() => undefined);
    return refused;
  }

  private heard(payload: string): void {
    let notice: z.infer<typeof noticeSchema>;
    try {
      notice = noticeSchema.parse(JSON.parse(payload));
    } catch {
      this.log(`machines: ignored a notice it could not read: ${payload}`);
      return;
    }
    if (notice.op === "del") return this.gone(notice.id);
    void this.pool
      .query<MachineRow>(`SELECT ${MACHINE_COLUMNS} FROM atrium_machines WHERE id = $1`, [notice.id])
      .then((rows) => (rows.rows[0] ? this.keep(rows.rows[0]) : this.gone(notice.id)))
      .catch((error: unknown) => this.log(`machines: could not read machine ${notice.id}: ${String(error)}`));
  }

  private keep(row: MachineRow): void {
    const parsed = storedMachineSchema.safeParse(row.record);
    if (!parsed.success) return this.log(`machines: machine ${row.id} in the database is not a record this version can read`);
    const before = JSON.stringify([this.machines.get(row.id), this.linkHolder(row.id)]);
    this.machines.set(row.id, parsed.data);
    // Claimed by a dial that has not said hello yet (no linked_at): not linked anywhere yet.
    if (row.linked_node && row.linked_at) this.linkedOn.set(row.id, row.linked_node);
    else this.linkedOn.delete(row.id);
    if (row.linked_at) this.linkedAt.set(row.id, row.linked_at);
    else this.linkedAt.delete(row.id);
    // This node's own writes come back as notices too: only a real change is told.
    if (JSON.stringify([parsed.data, this.linkHolder(row.id)]) !== before) this.changed(row.id);
  }

  private changed(id: string): void {
    for (const listener of this.changedListeners) listener(id);
  }

  /** The nodes seen within a lease; machines linked to a node that stopped being seen (or came back) are told as changed. */
  private async readLiveNodes(): Promise<void> {
    const rows = await this.pool.query<{ id: string; url: string | null }>(
      "SELECT id, url FROM atrium_nodes WHERE last_seen_at > clock_timestamp() - make_interval(secs => $1)",
      [this.leaseSeconds],
    );
    const before = this.liveNodes;
    this.liveNodes = new Map(rows.rows.map((row) => [row.id, row.url]));
    for (const [machineId, node] of this.linkedOn) {
      if (node !== this.nodeId && before.has(node) !== this.liveNodes.has(node)) this.changed(machineId);
    }
  }

  /** Removed on some node: if this node still had it, its link here is cut. */
  private gone(id: string): void {
    this.linkedOn.delete(id);
    this.linkedAt.delete(id);
    const known = this.machines.get(id);
    if (!known) return;
    this.machines.delete(id);
    // Never stored: nobody heard of it, so nobody is told it went.
    if (this.refusedHere.delete(id)) return;
    for (const listener of this.removedListeners) listener(id, known);
  }

  private async reload(): Promise<void> {
    const rows = await this.pool.query<MachineRow>(`SELECT ${MACHINE_COLUMNS} FROM atrium_machines`);
    const present = new Set(rows.rows.map((row) => row.id));
    for (const id of [...this.machines.keys()]) if (!present.has(id)) this.gone(id);
    for (const row of rows.rows) this.keep(row);
  }
}

/** A write's outcome without its row count; a caller that does not wait for it (a link's mark) leaves no unhandled rejection. */
function settled(write: Promise<number>): Promise<void> {
  const done = write.then(() => undefined);
  done.catch(() => undefined);
  return done;
}
