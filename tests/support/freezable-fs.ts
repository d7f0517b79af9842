import type fs from "node:fs";
import { nodeStorageFs, type StorageFs } from "@/lib/store/storage-fs";

/**
 * The real filesystem until `freeze()`: from then on no operation of this store reaches the disk
 * and none returns — the asynchronous ones never settle, the synchronous ones throw — as if the
 * process had been killed with SIGKILL at that instant. A Runtime left behind on a frozen store
 * writes nothing more and finishes nothing, so a second Runtime can open the same home and meet
 * only what a crash would have left: its files, and the index as it stood.
 */
export class FreezableStorageFs implements StorageFs {
  private frozen = false;

  freeze(): void {
    this.frozen = true;
  }

  open(filePath: string, flags: string): Promise<fs.promises.FileHandle> {
    return this.frozen ? never() : nodeStorageFs.open(filePath, flags);
  }

  write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    return this.frozen ? never() : nodeStorageFs.write(handle, filePath, chunk, offset, length);
  }

  datasync(handle: fs.promises.FileHandle, filePath: string): Promise<void> {
    return this.frozen ? never() : nodeStorageFs.datasync(handle, filePath);
  }

  truncate(handle: fs.promises.FileHandle, filePath: string, length: number): Promise<void> {
    return this.frozen ? never() : nodeStorageFs.truncate(handle, filePath, length);
  }

  /** A dead process commits no index transaction: it rolls back, as the index stood. */
  beforeIndexCommit(): void {
    if (this.frozen) throw new Error("the process is dead: the index transaction never committed");
  }

  rename(from: string, to: string): void {
    if (this.frozen) throw new Error("the process is dead: rename never happened");
    nodeStorageFs.rename(from, to);
  }

  syncDirectory(directory: string): void {
    if (this.frozen) throw new Error("the process is dead: the directory flush never happened");
    nodeStorageFs.syncDirectory(directory);
  }

  flushDirectory(directory: string): Promise<void> {
    return this.frozen ? never() : nodeStorageFs.flushDirectory(directory);
  }
}

function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
