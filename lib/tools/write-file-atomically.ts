import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import path from "node:path";

const EXCLUSIVE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes through a temporary file and a rename, so a reader or a crash never
 * sees half a file. Writes go to the symlink's target and keep the mode of an
 * existing file (an edited script stays executable).
 */
export async function writeFileAtomically(filePath: string, content: string): Promise<void> {
  const targetPath = await followSymlink(filePath);
  const directory = path.dirname(targetPath);
  await fs.mkdir(directory, { recursive: true });
  const existingMode = await modeOf(targetPath);
  const temporaryPath = path.join(
    directory,
    `.${path.basename(targetPath)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    // Exclusive and not through a link: a name planted at the temporary path fails the write instead of redirecting it.
    const handle = await fs.open(temporaryPath, EXCLUSIVE_FLAGS, existingMode ?? 0o666);
    try {
      await handle.writeFile(content);
      if (existingMode !== undefined) await handle.chmod(existingMode);
    } finally {
      await handle.close();
    }
    await fs.rename(temporaryPath, targetPath);
  } catch (error) {
    await fs.rm(temporaryPath, { force: true });
    throw error;
  }
}

async function followSymlink(filePath: string): Promise<string> {
  try {
    return await fs.realpath(filePath);
  } catch (error) {
    if (isMissing(error)) return filePath;
    throw error;
  }
}

async function modeOf(filePath: string): Promise<number | undefined> {
  try {
    return (await fs.stat(filePath)).mode & 0o7777;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
