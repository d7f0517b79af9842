import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh directory (under os.tmpdir() unless told otherwise), removed once `work` settles. */
export async function withTempDirectory<T>(
  prefix: string,
  work: (directory: string) => Promise<T>,
  parent: string = os.tmpdir(),
): Promise<T> {
  const directory = fs.mkdtempSync(path.join(parent, prefix));
  try {
    return await work(directory);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * tmpfs when the machine has one. On this VM's ext4 (mounted with `discard`) creating and
 * removing 20,000 files takes minutes of journal waits that belong to neither side of a
 * CPU-bound comparison.
 */
export function memoryBackedDirectory(): string {
  const override = process.env.BENCH_REINDEX_DIR;
  if (override) return override;
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    return "/dev/shm";
  } catch {
    return os.tmpdir();
  }
}
