import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { openIndex } from "../../lib/store/database";
import { dataPaths } from "../../lib/store/paths";

/** What the floors share: list the same directories, read the same files, JSON.parse every line. */
function eachRecord(home: string, onRecord: (conversationId: string, file: string, record: FixtureRecord, line: string) => void): number {
  const conversations = dataPaths(home).conversations;
  let records = 0;
  for (const conversationId of fs.readdirSync(conversations).sort()) {
    const directory = path.join(conversations, conversationId);
    for (const file of fs.readdirSync(directory).sort()) {
      if (!file.endsWith(".jsonl")) continue;
      const text = fs.readFileSync(path.join(directory, file), "utf8");
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; start = end + 1, end = text.indexOf("\n", start)) {
        const line = text.slice(start, end);
        onRecord(conversationId, file, JSON.parse(line) as FixtureRecord, line);
        records += 1;
      }
    }
  }
  return records;
}

function freshDatabase(databasePath: string): void {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${databasePath}${suffix}`, { force: true });
}

/**
 * The floor for reindex: the least work that yields the same index. Reads the same files,
 * JSON.parse of every line, and one bare positional statement per record into the index's own
 * schema (the real migrations, so the same tables, secondary indexes and FTS5 tables), the
 * full-text rows filled in one pass at the end, all in one transaction with the pragmas and
 * FTS5 settings reindex uses for its throwaway rebuild. It knows the fixture's record types and
 * skips what reindex must do on top: schema validation, every other record type, and the
 * per-conversation bookkeeping (updated_at, statuses, file progress). Returns the records read.
 */
export function reindexFloor(home: string, databasePath: string): number {
  freshDatabase(databasePath);
  const client = openIndex(databasePath).$client;
  try {
    client.pragma("journal_mode = OFF");
    client.pragma("synchronous = OFF");
    const insertConversation = client.prepare(`
      INSERT INTO conversations (id, title, title_source, agent, model, effort, cwd, executor, root_session_id,
        forked_from_conversation_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insertSession = client.prepare(`
      INSERT INTO sessions (id, conversation_id, parent_session_id, agent, model, depth, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const insertTurn = client.prepare(`
      INSERT INTO turns (id, conversation_id, session_id, status, model, effort, started_at, input_message_ids)
      VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`);
    const endTurn = client.prepare(`UPDATE turns SET status = ?, ended_at = ?, input_tokens = ?, output_tokens = ? WHERE id = ?`);
    const insertItem = client.prepare(`
      INSERT INTO items (id, conversation_id, session_id, seq, turn_id, kind, status, text, origin, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    let records = 0;
    client.transaction(() => {
      records = eachRecord(home, (conversationId, _file, record) => {
        switch (record.type) {
          case "conversation.created":
            insertConversation.run(conversationId, record.title, record.titleSource, record.agent, record.model, record.effort,
              record.cwd, record.executor, record.rootSessionId, record.forkedFrom?.conversationId ?? null, record.at, record.at);
            break;
          case "session.created":
            insertSession.run(record.sessionId, conversationId, record.parentSessionId ?? null, record.agent, record.model, record.depth ?? 0, record.at);
            break;
          case "turn.started":
            insertTurn.run(record.turnId, conversationId, record.sessionId, record.model, record.effort, record.at, JSON.stringify(record.inputMessageIds));
            break;
          case "turn.ended":
            endTurn.run(record.status, record.at, record.usage.inputTokens, record.usage.outputTokens, record.turnId);
            break;
          case "item.created": {
            const item = record.item;
            insertItem.run(item.id, conversationId, item.sessionId, record.seq, item.turnId, item.kind, item.status, item.text ?? null,
              item.origin ?? null, item.createdAt);
            break;
          }
          default:
            throw new Error(`the floor does not know record type ${(record as { type: string }).type}`);
        }
      });
      client.exec(`
        INSERT INTO item_fts(item_fts, rank) VALUES ('hashsize', 67108864);
        INSERT INTO item_fts(rowid, text, conversation_id)
          SELECT rowid, text, conversation_id FROM items
          WHERE kind IN ('user_message', 'assistant_message') AND text IS NOT NULL AND text <> '';
        INSERT INTO item_fts(item_fts, rank) VALUES ('hashsize', 1048576);
        INSERT INTO title_fts(rowid, title) SELECT rowid, title FROM conversations;
      `);
    })();
    return records;
  } finally {
    client.close();
  }
}

/**
 * The floor the bench used first, kept for comparison: each record into one minimal table with
 * no index and no full-text search, a cheaper job than building the index reindex must build.
 */
export function recordsFloor(home: string, databasePath: string): number {
  freshDatabase(databasePath);
  const database = new Database(databasePath);
  try {
    database.pragma("journal_mode = OFF");
    database.pragma("synchronous = OFF");
    database.exec(
      "CREATE TABLE records (conversation_id TEXT NOT NULL, file TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, line TEXT NOT NULL)",
    );
    const insert = database.prepare("INSERT INTO records VALUES (?, ?, ?, ?, ?)");
    let records = 0;
    database.transaction(() => {
      records = eachRecord(home, (conversationId, file, record, line) => insert.run(conversationId, file, record.seq, record.type, line));
    })();
    return records;
  } finally {
    database.close();
  }
}

/** The record shapes the fixture writes (bench/support/reindex-fixture.ts), read without validation. */
type FixtureRecord = { seq: number; at: string } & (
  | {
      type: "conversation.created";
      title: string;
      titleSource: string;
      agent: string;
      model: string;
      effort: string | null;
      cwd: string;
      executor: string;
      rootSessionId: string;
      forkedFrom: { conversationId: string } | null;
    }
  | { type: "session.created"; sessionId: string; agent: string; model: string; parentSessionId: string | null; depth?: number }
  | { type: "turn.started"; turnId: string; sessionId: string; model: string; effort: string | null; inputMessageIds: string[] }
  | { type: "turn.ended"; turnId: string; status: string; usage: { inputTokens: number; outputTokens: number } }
  | {
      type: "item.created";
      item: { id: string; sessionId: string; turnId: string | null; kind: string; status: string; text?: string; origin?: string; createdAt: string };
    }
);
