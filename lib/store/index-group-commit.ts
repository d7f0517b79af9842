import type Database from "better-sqlite3";

interface Entry {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The batch's transaction failed as a whole: SQLite rolled it back under one of its updates (a
 * full disk, an I/O error), or its COMMIT failed. Nothing of the batch is in the index; every
 * update of it fails with this error, `cause` being what SQLite (or the update) really answered.
 */
export class IndexBatchError extends Error {
  constructor(cause: unknown) {
    super(`the index transaction was rolled back: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * Group commit for the index: the updates of the records flushed to their JSONL files in one
 * turn of the event loop (many conversations' turns starting at once) are applied in one SQLite
 * transaction, so the pages they share are written to the WAL once instead of once per record.
 *
 * Each update runs in a savepoint of its own: one that throws while the transaction stands rolls
 * back alone and fails alone. Each update's outcome is taken before its savepoint is released, so
 * a transaction SQLite rolled back under it (SQLITE_FULL, an I/O error) fails the batch with that
 * error, not with the "no such savepoint" of the release after it. A failed COMMIT fails the batch
 * too. `beforeCommit` runs just before the real COMMIT (the fault seam, StorageFs.beforeIndexCommit).
 */
export class IndexGroupCommit {
  private queue: Entry[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private readonly statements: Record<"begin" | "savepoint" | "release" | "rollbackTo" | "commit" | "rollback", Database.Statement>;

  constructor(
    private readonly client: Database.Database,
    private readonly beforeCommit: () => void = () => undefined,
  ) {
    this.statements = {
      begin: client.prepare("BEGIN"),
      savepoint: client.prepare("SAVEPOINT atrium_group_unit"),
      release: client.prepare("RELEASE atrium_group_unit"),
      rollbackTo: client.prepare("ROLLBACK TO atrium_group_unit"),
      commit: client.prepare("COMMIT"),
      rollback: client.prepare("ROLLBACK"),
    };
  }

  /** Runs `work` in one transaction with the others queued in this turn of the event loop. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Applies what is queued now (the store calls this before it closes a conversation or the database). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes = this.apply(batch);
    if (outcomes instanceof IndexBatchError) {
      for (const entry of batch) entry.reject(outcomes);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof Failed) entry.reject(outcome.error);
      else entry.resolve(outcome);
    });
  }

  /** Every update's outcome, or the batch's failure. */
  private apply(batch: Entry[]): unknown[] | IndexBatchError {
    const s = this.statements;
    try {
      s.begin.run();
    } catch (error) {
      return new IndexBatchError(error);
    }
    const outcomes: unknown[] = [];
    try {
      for (const entry of batch) {
        const outcome = this.runOne(entry);
        if (outcome instanceof IndexBatchError) return outcome;
        outcomes.push(outcome);
      }
      this.beforeCommit();
      s.commit.run();
      return outcomes;
    } catch (error) {
      return new IndexBatchError(error);
    } finally {
      // A COMMIT that failed (or a seam that threw) can leave the transaction open: nothing of it stays.
      if (this.client.inTransaction) rollbackQuietly(s.rollback);
    }
  }

  /** One update in its savepoint; its outcome is taken before the savepoint is released. */
  private runOne(entry: Entry): unknown {
    const s = this.statements;
    s.savepoint.run();
    let outcome: unknown;
    try {
      outcome = entry.work();
    } catch (error) {
      outcome = new Failed(error);
    }
    // SQLite ended the batch's transaction itself: what the batch applied so far is gone too.
    if (!this.client.inTransaction) return new IndexBatchError(outcome instanceof Failed ? outcome.error : outcome instanceof Error ? outcome : new Error("SQLite rolled the transaction back"));
    if (outcome instanceof Failed) s.rollbackTo.run();
    s.release.run();
    return outcome;
  }
}

function rollbackQuietly(rollback: Database.Statement): void {
  try {
    rollback.run();
  } catch {
    // SQLite ended it meanwhile: nothing of it stays either way.
  }
}

class Failed {
  constructor(readonly error: unknown) {}
}

/** The SQLite error at the root of a failure (an update that caught its own failure keeps it as its cause). */
export function sqliteCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_")) return current;
    current = current.cause;
  }
  return error instanceof IndexBatchError ? error.cause : error;
}
