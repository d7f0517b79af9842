import path from "node:path";
import { AtriumError } from "../errors";
import type { MetadataRecord } from "../store/records";
import type { Store } from "../store/store";

/**
 * What checkpoints need of the store: the conversation's records to read. They write none: a
 * checkpoint record is the owner's (record_checkpoint), which hands it back here (`remember`).
 */
export interface CheckpointLedger {
  paths: Store["paths"];
  readMetadata: Store["readMetadata"];
  /** The snapshots of a conversation whose files are on a linked machine (kept there, DESIGN §10b); null: this host's. */
  snapshotsOf?(conversationId: string): SnapshotApi | null;
  /** A node of a cluster (DESIGN §10c): this host's snapshots are only those this node took. */
  clustered?: boolean;
}

/** What checkpoints do with a working directory's files, wherever they are: SnapshotStore here, or a machine's over its link. */
export type SnapshotApi = Pick<SnapshotStore, "snapshot" | "changes" | "changedPaths" | "restore">;

export type CheckpointFields = { turnId: string | null; itemId: string | null; cwd: string; tree: string; reason: CheckpointReason; takenAt?: string };
import { SnapshotStore, type ChangedFile, type SnapshotOutcome } from "./snapshot-store";

export type CheckpointRecord = Extract<MetadataRecord, { type: "checkpoint" }>;
export type CheckpointReason = CheckpointRecord["reason"];

export interface TurnChanges {
  files: ChangedFile[];
  diff: string;
  /** For the whole turn: the paths each file-changing tool call changed (for "see the turn's changes" links). */
  items?: Array<{ itemId: string; paths: string[] }>;
}

const NO_CHANGES: TurnChanges = { files: [], diff: "" };

/**
 * Checkpoints of conversations: snapshots of their cwd (a cache under $ATRIUM_HOME/snapshots)
 * and the `checkpoint` records in metadata.jsonl naming them, so a turn's changes and a
 * rewind's restore survive a restart. Losing the snapshots loses no conversation.
 */
export class Checkpoints {
  readonly snapshots: SnapshotStore;
  private readonly records = new Map<string, CheckpointRecord[]>();

  constructor(
    private readonly store: CheckpointLedger,
    maxFiles: number,
  ) {
    this.snapshots = new SnapshotStore(path.join(store.paths.home, "snapshots"), maxFiles);
  }

  /** The snapshots of this conversation's working directory: on its machine when that is a linked one. */
  storeFor(conversationId: string): SnapshotApi {
    return this.store.snapshotsOf?.(conversationId) ?? this.snapshots;
  }

  /** Without conversationId: this host's snapshots. */
  snapshot(cwd: string, conversationId?: string): Promise<SnapshotOutcome> {
    return (conversationId ? this.storeFor(conversationId) : this.snapshots).snapshot(cwd);
  }

  /** Checkpoint work (snapshot and record) still running, by conversation. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();

  track<T>(conversationId: string, work: Promise<T>): Promise<T> {
    const running = this.inFlight.get(conversationId) ?? new Set<Promise<unknown>>();
    this.inFlight.set(conversationId, running);
    running.add(work);
    const forget = () => {
      running.delete(work);
      if (running.size === 0 && this.inFlight.get(conversationId) === running) this.inFlight.delete(conversationId);
    };
    work.then(forget, forget);
    return work;
  }

  /** Resolves once the conversation's checkpoint work started so far is on record (a restore or fork reads after it). */
  async settled(conversationId: string): Promise<void> {
    await Promise.allSettled([...(this.inFlight.get(conversationId) ?? [])]);
  }

  /** A stopping server lets every checkpoint still running finish before it closes the store. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()].flatMap((running) => [...running]));
  }

  /** A checkpoint record the owner wrote (record_checkpoint): read with the others from now on. */
  remember(conversationId: string, written: MetadataRecord): void {
    if (written.type !== "checkpoint") return;
    // A list not read yet is read from the log, which already holds this record.
    const cached = this.records.get(conversationId);
    if (cached) cached.push(written);
    else this.list(conversationId);
  }

  list(conversationId: string): CheckpointRecord[] {
    let list = this.records.get(conversationId);
    if (!list) {
      list = this.store
        .readMetadata(conversationId)
        .records.flatMap(({ record }) => (record.type === "checkpoint" ? [record] : []));
      this.records.set(conversationId, list);
    }
    return list;
  }

  /**
   * A fork carries its parent's checkpoints taken before `cut` (the createdAt of the first item
   * it does not copy; null: all), so Restart from here keeps working on the copied messages.
   */
  async copy(cut: string | null, skipTurnId: string | null, fromId: string, record: (fields: CheckpointFields) => Promise<void>): Promise<void> {
    const copied = this.list(fromId).filter(
      (record) => (cut === null || (record.takenAt ?? record.at) < cut) && (record.turnId === null || record.turnId !== skipTurnId),
    );
    await Promise.all(
      copied.map(({ turnId, itemId, cwd, tree, reason, takenAt, at }) =>
        record({ turnId, itemId, cwd, tree, reason, takenAt: takenAt ?? at }),
      ),
    );
  }

  forget(conversationId: string): void {
    this.records.delete(conversationId);
  }

  /** Between the turn's first and last checkpoint; with itemId, between the checkpoint before that tool call and the one after it. */
  async turnChanges(conversationId: string, turnId: string, itemId?: string, context?: number): Promise<TurnChanges> {
    const ofTurn = this.list(conversationId).filter((record) => record.turnId === turnId);
    if (ofTurn.length < 2) return NO_CHANGES;
    let from = ofTurn[0];
    let to = ofTurn[ofTurn.length - 1];
    if (itemId) {
      const index = ofTurn.findIndex((record) => record.itemId === itemId);
      if (index < 1) return NO_CHANGES;
      from = ofTurn[index - 1];
      to = ofTurn[index];
    }
    if (from.cwd !== to.cwd || from.tree === to.tree) return NO_CHANGES;
    try {
      const changes: TurnChanges = await this.storeFor(conversationId).changes(to.cwd, from.tree, to.tree, context);
      if (!itemId) changes.items = await this.itemPaths(this.storeFor(conversationId), ofTurn);
      return changes;
    } catch (error) {
      // The snapshot store is a cache: when it is gone, the turn simply shows no changes (on a cluster node, it says why).
      const unreadable = await this.unreadable(conversationId, "the turn's file changes", { cwd: to.cwd, trees: [from.tree, to.tree] }, error);
      if (unreadable) throw unreadable;
      return NO_CHANGES;
    }
  }

  /**
   * Why snapshots the records name cannot be read here, to be answered instead of "no changes"
   * (null: nothing to say, as on a single server whose cache is gone). On a node of a cluster, the
   * built-in machine's snapshots stay on the node that took them (DESIGN §10c): only when the
   * trees are really missing from this node's store (the conversation moved here) is reading them
   * refused with 409 snapshots_elsewhere; any other failure (a deleted cwd, git) keeps the old answer.
   */
  async unreadable(conversationId: string, what: string, at: { cwd: string; trees: readonly string[] }, cause?: unknown): Promise<AtriumError | null> {
    if (!this.store.clustered || this.store.snapshotsOf?.(conversationId)) return null;
    if (await this.snapshots.holdsTrees(at.cwd, at.trees).catch(() => true)) return null;
    return new AtriumError(
      "snapshots_elsewhere",
      `${what} cannot be read on this node of the cluster: the built-in machine's file snapshots stay on the node that took them, and another node held this conversation then (or its snapshots are gone); a conversation on a linked machine keeps its file history on every node`,
      { cause },
    );
  }

  private async itemPaths(snapshots: SnapshotApi, ofTurn: CheckpointRecord[]): Promise<Array<{ itemId: string; paths: string[] }>> {
    const items: Array<{ itemId: string; paths: string[] }> = [];
    for (let index = 1; index < ofTurn.length; index += 1) {
      const [previous, record] = [ofTurn[index - 1], ofTurn[index]];
      if (!record.itemId || previous.cwd !== record.cwd) continue;
      const paths = await snapshots.changedPaths(record.cwd, previous.tree, record.tree);
      if (paths.length > 0) items.push({ itemId: record.itemId, paths });
    }
    return items;
  }
}
