import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type IndexDatabase = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS = path.join(import.meta.dirname ?? process.cwd(), "..", "..", "drizzle");

/** Opens metadata.db with the pragmas Atrium relies on, and applies the named migrations. */
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
  migrate(database, { migrationsFolder: options.migrationsFolder ?? MIGRATIONS });
  return database as IndexDatabase;
}
