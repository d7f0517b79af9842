import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

/**
 * The file operations the store's durability depends on, behind one seam so tests can make
 * them fail the way a full or broken disk does (ENOSPC on write, EIO on fdatasync …).
 */
export interface StorageFs {
  open(filePath: string, flags: string | number): Promise<fs.promises.FileHandle>;
  write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number>;
  datasync(handle: fs.promises.FileHandle, filePath: string): Promise<void>;
  truncate(handle: fs.promises.FileHandle, filePath: string, length: number): Promise<void>;
  rename(from: string, to: string): void;
  /** Makes a directory entry (a new file, a rename into it) durable. */
  syncDirectory(directory: string): void;
  /** The same, off the event loop: for the paths a turn start waits on, so other turns' deltas do not. */
  flushDirectory(directory: string): Promise<void>;
  /**
   * Called inside every index transaction after its statements, before it ends: with "unit" at
   * the end of every unit of work (a savepoint when it runs inside a group's transaction), with
   * "commit" just before the real COMMIT. A throw rolls back what it ends, as SQLite does when
   * the disk fills under it.
   */
  beforeIndexCommit(databasePath: string, scope: IndexCommitScope): void;
}

/** Where an index transaction ends: one unit of work's updates, or the real COMMIT of the transaction. */
export type IndexCommitScope = "unit" | "commit";

/**
 * How the JSONL appender opens its file: "a+" with O_DSYNC, so a write returns once its bytes are
 * as durable as write + fdatasync make them (Linux runs the same sync inside the write): one trip
 * to the thread pool per flush instead of two. Null where the platform has no O_DSYNC: the
 * appender then opens "a+" and calls datasync after writing.
 */
const { O_RDWR, O_CREAT, O_APPEND, O_DSYNC } = fs.constants;
export const DURABLE_APPEND_FLAGS: number | null = typeof O_DSYNC === "number" ? O_RDWR | O_CREAT | O_APPEND | O_DSYNC : null;

export const nodeStorageFs: StorageFs = {
  // Data-directory files are 0600 (DESIGN §10); the mode applies when open creates the file.
  open: (filePath, flags) => fs.promises.open(filePath, flags, 0o600),
  write: async (handle, _filePath, chunk, offset, length) => (await handle.write(chunk, offset, length, null)).bytesWritten,
  datasync: (handle) => handle.datasync(),
  truncate: (handle, _filePath, length) => handle.truncate(length),
  rename: (from, to) => fs.renameSync(from, to),
  syncDirectory,
  flushDirectory,
  beforeIndexCommit: () => undefined,
};

export function syncDirectory(directory: string): void {
  let descriptor: number | null = null;
  try {
    descriptor = fs.openSync(directory, "r");
    fs.fsyncSync(descriptor);
  } catch (error) {
    // Some filesystems refuse fsync on a directory (EINVAL/EISDIR); the entry is as durable as they allow.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "EISDIR" && code !== "EPERM") throw error;
  } finally {
    if (descriptor !== null) fs.closeSync(descriptor);
  }
}

export async function flushDirectory(directory: string): Promise<void> {
  let handle: fs.promises.FileHandle | null = null;
  try {
    handle = await fs.promises.open(directory, "r");
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "EISDIR" && code !== "EPERM") throw error;
  } finally {
    await handle?.close();
  }
}

/** `index`: a unit of index work fails (its own updates roll back); `index-commit`: the real COMMIT fails (the whole transaction). */
export type FaultOperation = "open" | "write" | "fdatasync" | "truncate" | "rename" | "fsyncdir" | "index" | "index-commit";

export interface Fault {
  operation: FaultOperation;
  /** An errno code (ENOSPC, EIO …); for `index`, an SQLite code (SQLITE_FULL, SQLITE_IOERR_WRITE …). */
  code: string;
  /** Only files whose path contains this (default: every file). */
  pathIncludes?: string;
  /** Only this very path. */
  pathIs?: string;
  /** How many calls fail before the fault clears by itself (default: until cleared). */
  times?: number;
  /** For `write`: how many bytes land before the failure, as on a disk that fills mid-write. */
  partialBytes?: number;
}

/** A StorageFs that fails on demand; otherwise the real filesystem. Used by fault-injection tests. */
export class FaultyStorageFs implements StorageFs {
  private faults: Fault[] = [];
  /** Files opened with DURABLE_APPEND_FLAGS: their writes are their flushes, so an fdatasync fault fails the write. */
  private readonly durable = new WeakSet<fs.promises.FileHandle>();
  /** How many injected failures have fired. */
  fired = 0;

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  clear(): void {
    this.faults = [];
  }

  async open(filePath: string, flags: string | number): Promise<fs.promises.FileHandle> {
    const fault = this.take("open", filePath);
    if (fault) throw errnoError(fault.code, "open", filePath);
    const handle = await nodeStorageFs.open(filePath, flags);
    if (flags === DURABLE_APPEND_FLAGS) this.durable.add(handle);
    return handle;
  }

  async write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    const fault = this.take("write", filePath);
    if (fault) {
      const partial = Math.min(fault.partialBytes ?? 0, length);
      if (partial > 0) await handle.write(chunk, offset, partial, null);
      throw errnoError(fault.code, "write", filePath);
    }
    const written = await nodeStorageFs.write(handle, filePath, chunk, offset, length);
    // An O_DSYNC write whose sync fails answers the error; its bytes may be in the file, never acknowledged.
    const syncFault = this.durable.has(handle) ? this.take("fdatasync", filePath) : null;
    if (syncFault) throw errnoError(syncFault.code, "write", filePath);
    return written;
  }

  datasync(handle: fs.promises.FileHandle, filePath: string): Promise<void> {
    const fault = this.take("fdatasync", filePath);
    if (fault) return Promise.reject(errnoError(fault.code, "fdatasync", filePath));
    return handle.datasync();
  }

  truncate(handle: fs.promises.FileHandle, filePath: string, length: number): Promise<void> {
    const fault = this.take("truncate", filePath);
    if (fault) return Promise.reject(errnoError(fault.code, "ftruncate", filePath));
    return handle.truncate(length);
  }

  rename(from: string, to: string): void {
    const fault = this.take("rename", to);
    if (fault) throw errnoError(fault.code, "rename", to);
    fs.renameSync(from, to);
  }

  syncDirectory(directory: string): void {
    syncDirectory(directory);
  }

  flushDirectory(directory: string): Promise<void> {
    const fault = this.take("fsyncdir", directory);
    if (fault) return Promise.reject(errnoError(fault.code, "fsync", directory));
    return flushDirectory(directory);
  }

  beforeIndexCommit(databasePath: string, scope: IndexCommitScope): void {
    const fault = this.take(scope === "unit" ? "index" : "index-commit", databasePath);
    if (fault) throw new Database.SqliteError(`${sqliteMessage(fault.code)} (injected fault)`, fault.code);
  }

  private take(operation: FaultOperation, filePath: string): Fault | null {
    const fault = this.faults.find(
      (candidate) =>
        candidate.operation === operation &&
        (!candidate.pathIncludes || filePath.includes(candidate.pathIncludes)) &&
        (!candidate.pathIs || filePath === candidate.pathIs),
    );
    if (!fault) return null;
    this.fired += 1;
    if (fault.times !== undefined && --fault.times <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }
}

function errnoError(code: string, syscall: string, filePath: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: injected fault, ${syscall} '${path.basename(filePath)}'`);
  error.code = code;
  error.syscall = syscall;
  error.path = filePath;
  return error;
}

/** The text SQLite gives with the code, so an injected failure reads like a real one. */
function sqliteMessage(code: string): string {
  if (code === "SQLITE_FULL") return "database or disk is full";
  if (code.startsWith("SQLITE_IOERR")) return "disk I/O error";
  if (code.startsWith("SQLITE_READONLY")) return "attempt to write a readonly database";
  return code;
}
