import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type IndexDatabase = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS = path.join(import.meta.dirname ?? process.cwd(), "..", "..", "drizzle");

/**
 * Opens metadata.db with the pragmas Atrium relies on, and applies the named migrations. Once
 * applied, the migrations' fingerprint is kept in the database's user_version: a start on an
 * index that is already current reads that one pragma instead of every migration file.
 */
export function openIndex(filePath: string, options: { migrationsFolder?: string } = {}): IndexDatabase {
  const client = new Database(filePath);
  // 0600 before WAL mode: SQLite gives the -wal and -shm files the database file's mode.
  if (filePath !== ":memory:") fs.chmodSync(filePath, 0o600);
  client.pragma("journal_mode = WAL");
  // The JSONL files are the truth and are fdatasync'd; the index can be rebuilt, so NORMAL is enough.
  client.pragma("synchronous = NORMAL");
  client.pragma("busy_timeout = 5000");
  client.pragma("foreign_keys = ON");
  const database = drizzle(client, { schema });
  const migrationsFolder = options.migrationsFolder ?? MIGRATIONS;
  const fingerprint = migrationsFingerprint(migrationsFolder);
  if (client.pragma("user_version", { simple: true }) !== fingerprint) {
    migrate(database, { migrationsFolder });
    client.pragma(`user_version = ${fingerprint}`);
  }
  return database as IndexDatabase;
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
