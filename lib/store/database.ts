import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type IndexDatabase = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS = path.join(import.meta.dirname ?? process.cwd(), "..", "..", "drizzle");

/** `true` in the bundle bin/bundle.mjs builds (esbuild's `define`); not defined when run through tsx. */
declare const __ATRIUM_BUNDLE__: boolean | undefined;

/**
 * Where `npm run build` leaves the empty, migrated index (bin/bundle.mjs: dist/, beside the
 * bundle). Used by the bundle only: run from the sources (tsx, the tests) every new index is
 * migrated as it always was.
 */
const BUNDLED_TEMPLATES =
  typeof __ATRIUM_BUNDLE__ !== "undefined" && __ATRIUM_BUNDLE__ ? path.join(import.meta.dirname ?? process.cwd(), "..", "..", "dist") : null;

export interface OpenIndexOptions {
  migrationsFolder?: string;
  /**
   * A folder that may hold `indexTemplateName(fingerprint)`: an empty index with exactly these
   * migrations applied. A new index file starts as a copy of it instead of running every
   * migration (about 30 ms of a first start, most of it waiting on the disk).
   */
  templateFolder?: string | null;
}

/**
 * Opens metadata.db with the pragmas Atrium relies on, and applies the named migrations. Once
 * applied, the migrations' fingerprint is kept in the database's user_version: a start on an
 * index that is already current reads that one pragma instead of every migration file.
 */
export function openIndex(filePath: string, options: OpenIndexOptions = {}): IndexDatabase {
  const migrationsFolder = options.migrationsFolder ?? MIGRATIONS;
  const fingerprint = migrationsFingerprint(migrationsFolder);
  const templateFolder = options.templateFolder === undefined ? BUNDLED_TEMPLATES : options.templateFolder;
  if (templateFolder !== null && filePath !== ":memory:") startFromTemplate(filePath, path.join(templateFolder, indexTemplateName(fingerprint)));
  const client = new Database(filePath);
  // 0600 before WAL mode: SQLite gives the -wal and -shm files the database file's mode.
  if (filePath !== ":memory:") fs.chmodSync(filePath, 0o600);
  client.pragma("journal_mode = WAL");
  // The JSONL files are the truth and are fdatasync'd; the index can be rebuilt, so NORMAL is enough.
  client.pragma("synchronous = NORMAL");
  client.pragma("busy_timeout = 5000");
  client.pragma("foreign_keys = ON");
  const database = drizzle(client, { schema });
  if (client.pragma("user_version", { simple: true }) !== fingerprint) {
    migrate(database, { migrationsFolder });
    client.pragma(`user_version = ${fingerprint}`);
  }
  return database as IndexDatabase;
}

/** The template's file name: the fingerprint of the migrations applied in it. */
export function indexTemplateName(fingerprint: number): string {
  return `index-template-${fingerprint}.db`;
}

/**
 * A new index (no file yet) begins as a copy of the template when there is one for these
 * migrations; an index that exists, or a missing template, is left to the migrations. The copy
 * is made durable under another name and then linked into place, so a crash leaves either no
 * index (made again at the next start) or a whole one, and a file that appeared meanwhile is kept.
 */
function startFromTemplate(filePath: string, template: string): void {
  if (fs.existsSync(filePath) || !fs.existsSync(template)) return;
  const copy = `${filePath}.template.tmp`;
  try {
    fs.rmSync(copy, { force: true });
    fs.copyFileSync(template, copy);
    const descriptor = fs.openSync(copy, "r+");
    try {
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.linkSync(copy, filePath);
  } catch {
    // Only a speed-up: a file that appeared meanwhile (EEXIST) is kept, and where the copy
    // cannot be made (no hard links on this file system, a full disk) the migrations run as always.
  }
  try {
    fs.rmSync(copy, { force: true });
  } catch {
    // Left for the next new index to replace; it is never read.
  }
}

/**
 * Writes the template `openIndex` copies for a new index: an empty index with every migration
 * in `migrationsFolder` applied, as one file (WAL checkpointed and closed). Run by `npm run build`.
 * Answers the template's path.
 */
export function writeIndexTemplate(folder: string, migrationsFolder: string = MIGRATIONS): string {
  const target = path.join(folder, indexTemplateName(migrationsFingerprint(migrationsFolder)));
  const building = `${target}.${process.pid}.tmp`;
  fs.mkdirSync(folder, { recursive: true });
  fs.rmSync(building, { force: true });
  const index = openIndex(building, { migrationsFolder, templateFolder: null });
  index.$client.pragma("wal_checkpoint(TRUNCATE)");
  index.$client.close();
  fs.renameSync(building, target);
  return target;
}

/**
 * The journal names every migration and its time, which is all drizzle's migrator compares
 * (it applies those newer than the last one applied): same journal, nothing to apply. 31 bits
 * (user_version is a signed 32-bit integer) and never 0, a new database's user_version.
 */
function migrationsFingerprint(migrationsFolder: string): number {
  const journal = fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"));
  return createHash("sha256").update(journal).digest().readUInt32BE(0) & 0x7fffffff || 1;
}
