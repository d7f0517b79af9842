import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { dataPaths } from "../../lib/store/paths";

/**
 * The floor for reindex: list the same directories, read the same files, JSON.parse every
 * line, and insert each record into one minimal table in one transaction, with the same
 * pragmas reindex uses for its throwaway rebuild. Returns the records inserted.
 */
export function reindexFloor(home: string, databasePath: string): number {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${databasePath}${suffix}`, { force: true });
  const database = new Database(databasePath);
  try {
    database.pragma("journal_mode = OFF");
    database.pragma("synchronous = OFF");
    database.exec(
      "CREATE TABLE records (conversation_id TEXT NOT NULL, file TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, line TEXT NOT NULL)",
    );
    const insert = database.prepare("INSERT INTO records VALUES (?, ?, ?, ?, ?)");
    const conversations = dataPaths(home).conversations;
    let records = 0;
    database.transaction(() => {
      for (const conversationId of fs.readdirSync(conversations).sort()) {
        const directory = path.join(conversations, conversationId);
        for (const file of fs.readdirSync(directory).sort()) {
          if (!file.endsWith(".jsonl")) continue;
          const text = fs.readFileSync(path.join(directory, file), "utf8");
          let start = 0;
          for (let end = text.indexOf("\n"); end !== -1; start = end + 1, end = text.indexOf("\n", start)) {
            const line = text.slice(start, end);
            const record = JSON.parse(line) as { seq: number; type: string };
            insert.run(conversationId, file, record.seq, record.type, line);
            records += 1;
          }
        }
      }
    })();
    return records;
  } finally {
    database.close();
  }
}
