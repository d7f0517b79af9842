import type { Lease, Leases } from "./leases";

export interface LeaseKeeperOptions {
  /** How often held leases are renewed; a third of the lease by default, so two renewals may fail before it expires. */
  renewEveryMs?: number;
  /** A lease this node held and lost (taken over while paused or cut off, or expired): its owner must stop. */
  onLost?: (lease: Lease) => void;
  log?: (message: string) => void;
}

/**
 * The leases one node holds, kept alive by a heartbeat (DESIGN §10c): `acquire` takes a
 * conversation's lease, the timer renews every held lease, a lease that cannot be renewed is
 * dropped at once and reported through onLost (the database already refuses its writes), and
 * `stop` hands every lease back so another node can take them without waiting for expiry.
 * `lease(conversationId)` is what PostgresRecordStore writes with.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, Lease>();
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    readonly leases: Leases,
    private readonly options: LeaseKeeperOptions = {},
  ) {
    const every = options.renewEveryMs ?? (leases.seconds * 1000) / 3;
    this.timer = setInterval(() => {
      void this.renewNow();
    }, every);
    this.timer.unref();
  }

  /** The lease this node holds on the conversation now, or null. */
  lease(conversationId: string): Lease | null {
    return this.held.get(conversationId) ?? null;
  }

  /** The conversation's lease for this node: the one held, or a new one (LeaseHeldError while another node holds it). */
  async acquire(conversationId: string): Promise<Lease> {
    if (this.stopped) throw new Error("the lease keeper is stopped");
    const held = this.held.get(conversationId);
    if (held) return held;
    const lease = await this.leases.take(conversationId);
    this.held.set(conversationId, lease);
    return lease;
  }

  /** Gives one conversation back (its owner is unloaded). */
  async release(conversationId: string): Promise<void> {
    const lease = this.held.get(conversationId);
    if (!lease) return;
    this.held.delete(conversationId);
    await this.leases.handBack(lease);
  }

  /** Conversations whose lease this node holds. */
  conversations(): string[] {
    return [...this.held.keys()].sort();
  }

  /** A clean stop: no more renewals, every lease handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.renewing;
    const leases = [...this.held.values()];
    this.held.clear();
    await Promise.all(leases.map((lease) => this.leases.handBack(lease)));
  }

  /** One round of renewals now (after the one under way, if any); the heartbeat calls it too. */
  renewNow(): Promise<void> {
    this.renewing = this.renewing.then(() => this.renewAll());
    return this.renewing;
  }

  private async renewAll(): Promise<void> {
    for (const lease of [...this.held.values()]) {
      if (this.stopped) return;
      let renewed: Lease | null;
      try {
        renewed = await this.leases.renew(lease);
      } catch (error) {
        // The database is out of reach: keep the lease; if it expires meanwhile the next renewal says so.
        this.options.log?.(`renewing the lease of ${lease.conversationId} failed: ${String(error)}`);
        continue;
      }
      if (this.held.get(lease.conversationId) !== lease) continue;
      if (renewed) this.held.set(lease.conversationId, renewed);
      else {
        this.held.delete(lease.conversationId);
        this.options.onLost?.(lease);
      }
    }
  }
}
