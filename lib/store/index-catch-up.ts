import fs from "node:fs";
import { AtriumError, indexStorageError, isStorageError } from "../errors";

/**
 * A record that is on disk, in its conversation's files, while the index could not take it (a
 * disk fault, see IndexCatchUp): the write happened and the answer is the storage error. The
 * conversation's owner folds the record all the same (its state is the files'), and answers the
 * error when the command is done.
 */
export class IndexBehindError<R = unknown> extends AtriumError {
  constructor(
    readonly record: R,
    readonly fault: AtriumError,
  ) {
    super(fault.code, fault.message, { cause: fault });
  }
}
import { IndexBatchError, IndexGroupCommit, sqliteCause } from "./index-group-commit";
import { ingestConversation, type IngestStore } from "./ingest";

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/**
 * Conversations whose index fell behind their files (the index is a cache, DESIGN §2): a record
 * was flushed to its JSONL file, then its index transaction failed for the disk's sake
 * (SQLITE_FULL, an I/O error) and rolled back. From then on nothing of that conversation is
 * indexed record by record (a later record on top of the missing one would leave a gap no size
 * check sees) until the conversation is re-ingested whole from its files: by its next write once
 * no other write of it is in flight, or by a retry timer. A restart finds it as well: its indexed
 * file sizes stayed behind, so start-up catch-up re-ingests it.
 */
export class IndexCatchUp {
  private readonly stale = new Set<string>();
  /** Appends under way per conversation: a re-ingest waits until none is, so no record is read and then applied again. */
  private readonly inFlight = new Map<string, number>();
  private readonly listeners = new Set<(conversationId: string) => void>();
  private timer: NodeJS.Timeout | null = null;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;
  /** The index updates of records flushed in one turn of the event loop share one transaction. */
  private readonly group: IndexGroupCommit;

  constructor(
    private readonly store: IngestStore,
    private readonly log: (message: string) => void,
    /** The fault seam at the group's real COMMIT (StorageFs.beforeIndexCommit). */
    beforeCommit: () => void = () => undefined,
  ) {
    this.group = new IndexGroupCommit(store.index.$client, beforeCommit);
  }

  isStale(conversationId: string): boolean {
    return this.stale.has(conversationId);
  }

  /** Called with a conversation's id whenever its index has caught up with its files. */
  onCaughtUp(listener: (conversationId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * One record: `append` puts it on disk, then `apply` indexes it in a transaction of its own
   * (a savepoint in the transaction of the records flushed in the same turn of the event loop,
   * see IndexGroupCommit). An index that fails for the disk's sake answers storage_full / storage_error, but the
   * record stays in the files, and the conversation is marked stale. `flushed` hears of the record
   * once it is on disk, before it is indexed; should it throw, the record is indexed all the same
   * (the index never falls behind its files unmarked) and its error is the answer.
   */
  async append<R>(conversationId: string, append: () => Promise<R>, apply: (record: R) => void, flushed?: (record: R) => void): Promise<R> {
    this.inFlight.set(conversationId, (this.inFlight.get(conversationId) ?? 0) + 1);
    let record: R;
    let fault: AtriumError | null = null;
    let listenerError: { error: unknown } | null = null;
    try {
      record = await append();
      try {
        flushed?.(record);
      } catch (error) {
        listenerError = { error };
      }
      if (!this.stale.has(conversationId)) fault = await this.applyGrouped(conversationId, () => apply(record));
    } finally {
      const left = this.inFlight.get(conversationId)! - 1;
      if (left === 0) this.inFlight.delete(conversationId);
      else this.inFlight.set(conversationId, left);
    }
    // Stale before this record: it is on disk with the others and comes in with them. (One this
    // record's own index update just failed waits for the next write or the retry timer.)
    if (!fault && this.stale.has(conversationId) && !this.inFlight.has(conversationId)) {
      try {
        this.reingest(conversationId);
      } catch (error) {
        this.schedule();
        if (!isStorageError(error)) throw error;
        fault = error;
      }
    }
    if (fault) throw new IndexBehindError(record, fault);
    if (listenerError) throw listenerError.error;
    return record;
  }

  /**
   * Before answering a request from its requestKey: a conversation whose index is behind its
   * files is caught up first, so a key written while the index failed is found. One that cannot
   * be caught up now answers the storage error; the request is not performed a second time.
   */
  ensureCurrent(conversationId: string): void {
    if (!this.stale.has(conversationId)) return;
    if (this.inFlight.has(conversationId)) {
      throw new AtriumError("storage_error", `the index of conversation ${conversationId} is catching up with its files; retry the request in a moment`);
    }
    try {
      this.reingest(conversationId);
    } catch (error) {
      this.schedule();
      throw error;
    }
  }

  /**
   * `tryApply` in the group's transaction; the conversation may have gone stale while the record
   * waited for it. A batch that failed as a whole (SQLite rolled it back, or its COMMIT failed)
   * left every conversation of it behind its files, whatever the cause: each is marked stale and
   * answers the storage error its cause names (storage_error when it is not the disk's).
   */
  private async applyGrouped(conversationId: string, work: () => void): Promise<AtriumError | null> {
    try {
      return await this.group.run(() => (this.stale.has(conversationId) ? null : this.tryApply(conversationId, work)));
    } catch (error) {
      if (!(error instanceof IndexBatchError)) throw error;
      this.markStale(conversationId);
      return batchFault(error, conversationId);
    }
  }

  /** Applies the index updates still waiting for their group's transaction (before the database closes). */
  flushIndex(): void {
    this.group.flush();
  }

  private tryApply(conversationId: string, work: () => void): AtriumError | null {
    try {
      this.apply(conversationId, work);
      return null;
    } catch (error) {
      if (isStorageError(error)) return error;
      throw error;
    }
  }

  /** An index change of one conversation outside an append; a disk fault marks it stale and is thrown typed. */
  apply(conversationId: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      const typed = indexStorageError(error, `conversation ${conversationId}`);
      if (!typed) throw error;
      this.markStale(conversationId);
      throw typed;
    }
  }

  markStale(conversationId: string): void {
    if (!this.stale.has(conversationId)) this.log(`the index of conversation ${conversationId} is behind its files; it is caught up from them`);
    this.stale.add(conversationId);
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Replaces the conversation's rows with its files' (none if its directory is gone). */
  private reingest(conversationId: string): void {
    try {
      if (fs.existsSync(this.store.paths.conversation(conversationId))) {
        const outcome = ingestConversation(this.store, conversationId);
        if (outcome.status === "skipped") this.log(`conversation ${conversationId} could not be re-indexed: ${outcome.reason}`);
      } else {
        this.store.writer.transaction(() => this.store.writer.removeConversation(conversationId));
      }
    } catch (error) {
      throw indexStorageError(error, `conversation ${conversationId}`) ?? error;
    }
    this.stale.delete(conversationId);
    this.log(`the index of conversation ${conversationId} caught up with its files`);
    for (const listener of this.listeners) listener(conversationId);
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => this.retry(), this.retryMs);
    this.timer.unref();
  }

  private retry(): void {
    this.timer = null;
    for (const conversationId of [...this.stale]) {
      // A write under way catches it up when it is done.
      if (this.inFlight.has(conversationId)) continue;
      try {
        this.reingest(conversationId);
      } catch (error) {
        this.log(`the index of conversation ${conversationId} is still behind its files: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (this.stale.size === 0) {
      this.retryMs = FIRST_RETRY_MS;
      return;
    }
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.schedule();
  }
}

/** What a record of a failed batch answers: its real cause typed for the contract. */
function batchFault(error: IndexBatchError, conversationId: string): AtriumError {
  const cause = sqliteCause(error);
  const what = `conversation ${conversationId}`;
  const typed = indexStorageError(cause, what);
  if (typed) return typed;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AtriumError(
    "storage_error",
    `the index transaction the record of ${what} shared with others failed (${reason}); the record is saved in the conversation's files and the index catches up from them`,
    { cause: error },
  );
}
