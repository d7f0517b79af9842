import type fs from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { storageError } from "../errors";
import { DURABLE_APPEND_FLAGS, nodeStorageFs, type StorageFs } from "./storage-fs";

export interface AppendedRecord<Record> {
  record: Record;
  /** File size once this line is on disk: the index keeps it to notice files that ran ahead. */
  endOffset: number;
}

export interface AppenderOptions {
  now?: () => Date;
  /** Called once when the file had a torn tail that opening cut off. */
  onRepair?: (message: string) => void;
  fs?: StorageFs;
  /**
   * Where the last acknowledged line ended, known from a writer that failed: anything after it
   * was never acknowledged and is cut, even if it happens to be whole lines.
   */
  goodBytes?: number;
}

interface Pending {
  line: string;
  record: unknown;
  resolve: (value: AppendedRecord<never>) => void;
  reject: (error: unknown) => void;
}

/**
 * Append-only JSONL writer. Lines appended in the same task share one write and
 * one fdatasync (group commit; the file is opened O_DSYNC, so that write is the flush); every
 * promise resolves only once its line is flushed, so callers can update the index and publish
 * strictly after.
 *
 * A batch whose write or flush fails is cut back to the last good byte, its seqs (and those
 * of lines queued behind it) are given back, and the writer marks itself failed: the store
 * then opens a new one, which rescans the file, before the next append (DESIGN §2).
 */
export class JsonlAppender<Body extends object, Record extends Body & { seq: number }> {
  private pending: Pending[] = [];
  private scheduled = false;
  private flushing = false;
  private closed = false;
  private broken = false;
  private idleWaiters: Array<() => void> = [];

  private constructor(
    readonly filePath: string,
    private readonly handle: fs.promises.FileHandle,
    private lastSeq: number,
    private size: number,
    private readonly now: () => Date,
    private readonly fs: StorageFs,
  ) {}

  static async open<Body extends object, Record extends Body & { seq: number }>(
    filePath: string,
    options: AppenderOptions = {},
  ): Promise<JsonlAppender<Body, Record>> {
    const storage = options.fs ?? nodeStorageFs;
    const scanned = await scanTail(filePath);
    const { lastSeq, totalBytes } = scanned;
    let goodBytes = scanned.goodBytes;
    if (options.goodBytes !== undefined && options.goodBytes < goodBytes) {
      goodBytes = options.goodBytes;
    }
    let handle: fs.promises.FileHandle;
    try {
      handle = await storage.open(filePath, DURABLE_APPEND_FLAGS ?? "a+");
    } catch (error) {
      throw storageError(error, path.basename(filePath));
    }
    try {
      if (totalBytes === 0 && scanned.missing) await storage.flushDirectory(path.dirname(filePath));
      if (goodBytes < totalBytes) {
        // Finish the repair a reader only reports: drop the torn tail before appending again.
        await storage.truncate(handle, filePath, goodBytes);
        await storage.datasync(handle, filePath);
        const what = goodBytes === scanned.goodBytes ? "a torn last line" : "lines that were never acknowledged";
        options.onRepair?.(`${filePath}: cut ${what} (${totalBytes - goodBytes} bytes)`);
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw storageError(error, path.basename(filePath));
    }
    const seq = goodBytes === scanned.goodBytes ? lastSeq : (await scanTail(filePath)).lastSeq;
    return new JsonlAppender(filePath, handle, seq, goodBytes, options.now ?? (() => new Date()), storage);
  }

  /** A write or flush failed: this writer takes no more lines; the store opens a fresh one. */
  get failed(): boolean {
    return this.broken;
  }

  get seq(): number {
    return this.lastSeq;
  }

  get bytes(): number {
    return this.size;
  }

  append(body: Body): Promise<AppendedRecord<Record>> {
    if (this.closed) return Promise.reject(new Error(`${this.filePath} is closed`));
    if (this.broken) return Promise.reject(storageError(new Error("an earlier write failed"), path.basename(this.filePath)));
    const record = { v: 1, seq: ++this.lastSeq, at: this.now().toISOString(), ...body };
    const line = `${JSON.stringify(record)}\n`;
    return new Promise((resolve, reject) => {
      this.pending.push({ line, record, resolve: resolve as Pending["resolve"], reject });
      this.schedule();
    });
  }

  /** Resolves once everything appended so far is flushed. */
  async drain(): Promise<void> {
    if (!this.flushing && !this.scheduled && this.pending.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    await this.handle.close().catch((error: unknown) => {
      if (!this.broken) throw error;
    });
  }

  /**
   * The write starts at the end of the current task (its microtasks included), not at the loop's
   * next check phase: requests that arrive together are handled one after another in one poll
   * phase, and each one's record is then already on its way to disk while the next is handled.
   * Lines appended meanwhile wait in `pending` and share the next write. A tick queued from a
   * promise job runs once the microtask queue is empty, so every line a task's promise jobs append
   * shares the write (the store's callers always append from one: they await the appender first);
   * a line appended from the task's synchronous part starts its write before those jobs run.
   */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    process.nextTick(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.flushing = true;
    const batch = this.pending;
    this.pending = [];
    try {
      const buffers = batch.map((entry) => Buffer.from(entry.line, "utf8"));
      const chunk = Buffer.concat(buffers);
      let written = 0;
      while (written < chunk.length) {
        written += await this.fs.write(this.handle, this.filePath, chunk, written, chunk.length - written);
      }
      // Opened with O_DSYNC, the writes were the flush (see DURABLE_APPEND_FLAGS).
      if (DURABLE_APPEND_FLAGS === null) await this.fs.datasync(this.handle, this.filePath);
      let offset = this.size;
      this.size += chunk.length;
      batch.forEach((entry, index) => {
        offset += buffers[index].length;
        entry.resolve({ record: entry.record as never, endOffset: offset });
      });
    } catch (error) {
      await this.giveBack(batch, error);
    } finally {
      this.flushing = false;
      if (this.pending.length > 0) this.schedule();
      else this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }

  /**
   * Cuts the file back to the last acknowledged byte and takes back every seq not yet on disk,
   * so the next line continues the sequence. If even the cut fails, the next writer's open does it.
   */
  private async giveBack(batch: Pending[], error: unknown): Promise<void> {
    this.broken = true;
    const rejected = [...batch, ...this.pending.splice(0)];
    this.lastSeq -= rejected.length;
    try {
      await this.fs.truncate(this.handle, this.filePath, this.size);
      await this.fs.datasync(this.handle, this.filePath);
    } catch {
      // left to the reopen, which is told where the good bytes end
    }
    const typed = storageError(error, path.basename(this.filePath));
    rejected.forEach((entry) => entry.reject(typed));
  }
}

/** Finds the last complete line's seq and where the good part of the file ends. */
async function scanTail(filePath: string): Promise<{ lastSeq: number; goodBytes: number; totalBytes: number; missing: boolean }> {
  let buffer: Buffer;
  try {
    buffer = await readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lastSeq: 0, goodBytes: 0, totalBytes: 0, missing: true };
    throw storageError(error, path.basename(filePath));
  }
  const goodBytes = buffer.lastIndexOf(10) + 1;
  let lastSeq = 0;
  // Walk back over complete lines until one parses; a corrupt complete line is left for readers to report.
  let end = goodBytes - 1;
  while (end > 0) {
    const start = buffer.lastIndexOf(10, end - 1) + 1;
    try {
      const parsed = JSON.parse(buffer.toString("utf8", start, end)) as { seq?: unknown };
      if (typeof parsed.seq === "number") {
        lastSeq = parsed.seq;
        break;
      }
    } catch {
      // keep walking back
    }
    end = start - 1;
  }
  return { lastSeq, goodBytes, totalBytes: buffer.length, missing: false };
}
