import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Create only, never through a link: a name planted in advance (a symlink, a file) makes the open fail instead of being written through. */
const EXCLUSIVE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/**
 * Replaces `target` with `content` and `mode` through a temporary file beside it and a rename,
 * so a reader never sees half a file. The temporary name is random (nobody can plant a link at
 * it in advance) and opened exclusively without following links, so even a guessed name is
 * never written through; the rename replaces a link at `target` itself rather than its target.
 */
export function replaceFileExclusively(target: string, content: Buffer, mode: number): void {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.atrium-restore-${randomBytes(12).toString("hex")}`);
  const descriptor = fs.openSync(temporary, EXCLUSIVE_FLAGS, mode);
  try {
    try {
      fs.writeFileSync(descriptor, content);
      // The umask trimmed the mode given to open; the file must have exactly the recorded bits.
      fs.fchmodSync(descriptor, mode);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
