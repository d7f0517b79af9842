import fs from "node:fs";

/**
 * Reads of the folders and files a model request is built from (memories, skills, AGENTS.md),
 * made every model call: a missing one is found with a stat that does not throw (most of them
 * are missing, and a thrown ENOENT costs more than the read), and a file's text is kept while
 * its size and mtime hold.
 */
export function folderEntries(folder: string): fs.Dirent[] {
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) return [];
  try {
    return fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

const texts = new Map<string, { stamp: string; text: string; modifiedAt: number }>();
/** Past this many files the cache starts again: it holds what recent requests read, not a history. */
const MAX_CACHED_FILES = 2000;

/** A file's text and mtime, or null when it is missing or unreadable; read again only when it changed. */
export function stampedText(file: string): { text: string; modifiedAt: number } | null {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  if (!stats?.isFile()) return null;
  const stamp = `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  const cached = texts.get(file);
  if (cached?.stamp === stamp) return cached;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (texts.size >= MAX_CACHED_FILES) texts.clear();
  const entry = { stamp, text, modifiedAt: stats.mtimeMs };
  texts.set(file, entry);
  return entry;
}

