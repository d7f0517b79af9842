import crypto from "node:crypto";
import { z } from "zod";
import { readFileIfPresent, writePrivateFileAtomically } from "../store/private-file";

const storedMachineSchema = z.object({
  id: z.string(),
  name: z.string(),
  tokenHash: z.string(),
  /** The roots the owner allowed when adding it; empty: whatever roots the machine offers. */
  allowedRoots: z.array(z.string()),
  createdAt: z.string(),
  hostname: z.string().nullable(),
  platform: z.string().nullable(),
  roots: z.array(z.string()),
  sandbox: z.string().nullable(),
  lastSeenAt: z.string().nullable(),
});
export type StoredMachine = z.infer<typeof storedMachineSchema>;
export { storedMachineSchema };

const fileSchema = z.object({ v: z.literal(1), machines: z.array(storedMachineSchema) });

export function tokenHash(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** A machine token: 32 random bytes, prefixed so a leaked one is recognisable. */
export function newMachineToken(): string {
  return `atrium_machine_${crypto.randomBytes(32).toString("base64url")}`;
}

/** A dial's claim of a machine's link (DESIGN §10c): taken (its number), held by another live node, or the machine is gone. */
export type LinkClaim = { claimed: number } | { heldBy: string } | { removed: true };

/** What became of a link's mark in a cluster (see MachineBook.markLinked). */
export type LinkMark = "linked" | "claimed_again" | "refused";

/**
 * Where the linked machines' records are kept: the file on a single server, a cluster's database
 * (lib/cluster/cluster-machines.ts) on a node of a cluster. Reads are synchronous (kept in memory).
 */

export interface MachineBook {
  all(): StoredMachine[];
  get(id: string): StoredMachine | undefined;
  byName(name: string): StoredMachine | undefined;
  byToken(token: string): StoredMachine | undefined;
  /** Stored (a cluster's database: the promise says when, and rejects when this write was refused). */
  put(machine: StoredMachine): void | Promise<void>;
  remove(id: string): void | Promise<void>;
  /** A cluster node: a token this node does not know yet is looked up in the shared store (null: nothing to wait for). */
  prepareToken?(token: string): Promise<void> | null;
  /** A cluster node takes the machine's link before letting a dial in: the claim's number, the node holding it, or removed. */
  claimLink?(id: string): Promise<LinkClaim>;
  /** Another node removed a machine (a cluster): its link here must be cut. */
  onRemoved?(listener: (id: string, machine: StoredMachine) => void): void;
  /** Another node changed a machine's record or link (a cluster): its view here changed too. */
  onChanged?(listener: (id: string) => void): void;
  /**
   * The dial of `claim` became this node's link since `connectedAt` (a cluster). "claimed_again":
   * the claim is no longer this node's; "refused": the database refused the mark (no other node
   * would see the link).
   */
  markLinked?(id: string, claim: number, connectedAt: string): Promise<LinkMark>;
  /** The dial of `claim` let the link go (a cluster): nothing changes if a newer dial claimed it since. */
  letGo?(id: string, claim: number): void;
  /** The other node holding the machine's link, if any (a cluster). */
  linkedElsewhere?(id: string): string | null;
  /** The other live node holding the machine's link and its address (a cluster; null: none, or here). */
  linkHolder?(id: string): { nodeId: string; url: string | null; connectedAt: string | null } | null;
}

/** The machine a presented token belongs to, compared in constant time. */
export function machineByToken(machines: Iterable<StoredMachine>, token: string): StoredMachine | undefined {
  const presented = Buffer.from(tokenHash(token), "hex");
  return [...machines].find((machine) => crypto.timingSafeEqual(Buffer.from(machine.tokenHash, "hex"), presented));
}

/** Machines in the order they were added. */
export function byCreation(machines: Iterable<StoredMachine>): StoredMachine[] {
  return [...machines].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/**
 * The linked machines (DESIGN §10b) in `$ATRIUM_HOME/machines.json` (mode 0600, temp + rename,
 * like sessions.json): names, roots and what each reported when it last connected, and the
 * SHA-256 of its token — never the token. Read once at start, kept in memory.
 */
export class MachineRecords implements MachineBook {
  private readonly machines = new Map<string, StoredMachine>();

  constructor(private readonly filePath: string) {
    this.load();
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

  /** The machine a presented token belongs to, compared in constant time. */
  byToken(token: string): StoredMachine | undefined {
    return machineByToken(this.machines.values(), token);
  }

  put(machine: StoredMachine): void {
    this.machines.set(machine.id, machine);
    this.save();
  }

  remove(id: string): void {
    if (this.machines.delete(id)) this.save();
  }

  private load(): void {
    const text = readFileIfPresent(this.filePath);
    if (text === null) return;
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.filePath} is not a machines file this version can read`);
    for (const machine of parsed.data.machines) this.machines.set(machine.id, machine);
  }

  private save(): void {
    writePrivateFileAtomically(this.filePath, `${JSON.stringify({ v: 1, machines: this.all() }, null, 1)}\n`);
  }
}
