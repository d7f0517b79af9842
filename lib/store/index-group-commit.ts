import type Database from "better-sqlite3";

interface Entry {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the index: the updates of the records flushed to their JSONL files in one
 * turn of the event loop (many conversations' turns starting at once) are applied in one SQLite
 * transaction, so the pages they share are written to the WAL once instead of once per record.
 *
 * Each update runs in a savepoint of its own: one that throws rolls back alone and fails alone. If SQLite rolled the whole
 * transaction back under it (a full disk, an I/O error), or the commit fails, nothing of the
 * batch is in the index and every update fails with that error; their conversations are then
 * caught up from their files (IndexCatchUp). A batch of one is its own transaction, as before.
 */
export class IndexGroupCommit {
  private queue: Entry[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private readonly runBatch: (batch: Entry[]) => unknown[];
  /** One update inside the batch: a savepoint. */
  private readonly runSaved: (work: () => unknown) => unknown;

  constructor(private readonly client: Database.Database) {
    this.runBatch = client.transaction((batch: Entry[]) => batch.map((entry) => this.runOne(entry)));
    this.runSaved = client.transaction((work: () => unknown) => work());
  }

  /** Runs `work` in one transaction with the others queued in this turn of the event loop (alone, in its own). */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Applies what is queued now (the store calls this before it closes the database). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 1) return settle(batch[0], () => this.runSaved(batch[0].work));
    if (batch.length === 0) return;
    let outcomes: unknown[];
    try {
      outcomes = this.runBatch(batch);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof Failed) entry.reject(outcome.error);
      else entry.resolve(outcome);
    });
  }

  private runOne(entry: Entry): unknown {
    let outcome: unknown;
    try {
      outcome = this.runSaved(entry.work);
    } catch (error) {
      outcome = new Failed(error);
    }
    // SQLite ended the batch's transaction itself: what the batch applied so far is gone too.
    if (!this.client.inTransaction) throw outcome instanceof Failed ? outcome.error : (causeOf(outcome) ?? new BatchLostError());
    return outcome;
  }
}

class Failed {
  constructor(readonly error: unknown) {}
}

/** The batch's transaction ended under an update that did not throw: treated as a failed commit. */
class BatchLostError extends Error {
  readonly code = "SQLITE_IOERR";
  constructor() {
    super("the index transaction was rolled back");
  }
}

/** An update that caught its own failure (IndexCatchUp answers the typed fault) keeps the SQLite error as its cause. */
function causeOf(outcome: unknown): unknown {
  return outcome instanceof Error && outcome.cause !== undefined ? outcome.cause : undefined;
}

function settle(entry: Entry, work: () => unknown): void {
  let value: unknown;
  try {
    value = work();
  } catch (error) {
    entry.reject(error);
    return;
  }
  entry.resolve(value);
}
