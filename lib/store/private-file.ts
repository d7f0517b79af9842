import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { syncDirectory } from "./storage-fs";

/**
 * The small settings files of the data directory (sessions, machines, approval rules): read
 * whole, replaced whole. A crash mid-write leaves the old file or the new one, never half of one.
 */

/** The file's text, or null when there is none. */
export function readFileIfPresent(filePath: string): string | null {
  try {
    return fs.readFileSync(filePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces the file with `body` (mode 0600): a fresh temp file beside it, flushed, renamed over it. */
export function writePrivateFileAtomically(filePath: string, body: string): void {
  const directory = path.dirname(filePath);
  const temporary = path.join(directory, `.${path.basename(filePath)}.${process.pid}.${crypto.randomBytes(6).toString("hex")}.tmp`);
  const handle = fs.openSync(temporary, "wx", 0o600);
  try {
    fs.writeFileSync(handle, body);
    fs.fdatasyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  try {
    fs.renameSync(temporary, filePath);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(directory);
}
