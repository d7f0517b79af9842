import fs from "node:fs";
import path from "node:path";

export interface AppendedRecord<Record> {
  record: Record;
  /** File size once this line is on disk: the index keeps it to notice files that ran ahead. */
  endOffset: number;
}

export interface AppenderOptions {
  now?: () => Date;
  /** Called once when the file had a torn tail that opening cut off. */
  onRepair?: (message: string) => void;
}

interface Pending {
  line: string;
  record: unknown;
  resolve: (value: AppendedRecord<never>) => void;
  reject: (error: unknown) => void;
}

/**
 * Append-only JSONL writer. Lines appended in the same tick share one write and
 * one fdatasync (group commit); every promise resolves only once its line is
 * flushed, so callers can update the index and publish strictly after.
 */
export class JsonlAppender<Body extends object, Record extends Body & { seq: number }> {
  private pending: Pending[] = [];
  private scheduled = false;
  private flushing = false;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  private constructor(
    readonly filePath: string,
    private readonly handle: fs.promises.FileHandle,
    private lastSeq: number,
    private size: number,
    private readonly now: () => Date,
  ) {}

  static async open<Body extends object, Record extends Body & { seq: number }>(
    filePath: string,
    options: AppenderOptions = {},
  ): Promise<JsonlAppender<Body, Record>> {
    await fs.promises.mkdir(path.dirname(filePath), { recursive: true });
    const { lastSeq, goodBytes, totalBytes } = await scanTail(filePath);
    const handle = await fs.promises.open(filePath, "a+");
    if (goodBytes < totalBytes) {
      // Finish the repair a reader only reports: drop the torn tail before appending again.
      await handle.truncate(goodBytes);
      await handle.datasync();
      options.onRepair?.(`${filePath}: cut a torn last line (${totalBytes - goodBytes} bytes)`);
    }
    return new JsonlAppender(filePath, handle, lastSeq, goodBytes, options.now ?? (() => new Date()));
  }

  get seq(): number {
    return this.lastSeq;
  }

  get bytes(): number {
    return this.size;
  }

  append(body: Body): Promise<AppendedRecord<Record>> {
    if (this.closed) return Promise.reject(new Error(`${this.filePath} is closed`));
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
    await this.handle.close();
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
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
        const { bytesWritten } = await this.handle.write(chunk, written, chunk.length - written, null);
        written += bytesWritten;
      }
      await this.handle.datasync();
      let offset = this.size;
      this.size += chunk.length;
      batch.forEach((entry, index) => {
        offset += buffers[index].length;
        entry.resolve({ record: entry.record as never, endOffset: offset });
      });
    } catch (error) {
      batch.forEach((entry) => entry.reject(error));
    } finally {
      this.flushing = false;
      if (this.pending.length > 0) this.schedule();
      else this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }
}

/** Finds the last complete line's seq and where the good part of the file ends. */
async function scanTail(filePath: string): Promise<{ lastSeq: number; goodBytes: number; totalBytes: number }> {
  let buffer: Buffer;
  try {
    buffer = await fs.promises.readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lastSeq: 0, goodBytes: 0, totalBytes: 0 };
    throw error;
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
  return { lastSeq, goodBytes, totalBytes: buffer.length };
}
