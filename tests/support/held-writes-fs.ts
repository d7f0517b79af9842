import type fs from "node:fs";
import { FaultyStorageFs } from "@/lib/store/storage-fs";

/**
 * FaultyStorageFs whose next write to each of some files is held once it is on disk: `release`
 * lets them all answer at once, so their records come back in one turn of the event loop (as
 * turns starting together do) and their index updates share one group transaction.
 */
export class HeldWritesFs extends FaultyStorageFs {
  private held: Array<{ pathIncludes: string; gate: Promise<void> | null }> = [];
  /** Held writes that are on disk, waiting for `release`. */
  private waiting = 0;
  private releaseAll: () => void = () => undefined;
  private arrived: () => void = () => undefined;

  /** Holds the next write of a file whose path contains each of `pathIncludes`; resolves once every one is on disk and held. */
  hold(pathIncludes: string[]): Promise<void> {
    const gate = new Promise<void>((resolve) => (this.releaseAll = resolve));
    this.held = pathIncludes.map((part) => ({ pathIncludes: part, gate }));
    this.waiting = 0;
    return new Promise<void>((resolve) => (this.arrived = resolve));
  }

  release(): void {
    this.releaseAll();
  }

  override async write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    const slot = this.held.find((candidate) => candidate.gate && filePath.includes(candidate.pathIncludes));
    const gate = slot?.gate;
    if (slot) slot.gate = null;
    const written = await super.write(handle, filePath, chunk, offset, length);
    if (gate) {
      this.waiting += 1;
      if (this.waiting === this.held.length) this.arrived();
      await gate;
    }
    return written;
  }
}
