import type Database from "better-sqlite3";
import type { IndexStatements } from "./index-statements";

/** The kinds of item whose text is searchable: the messages, not tool calls or notes. */
export const SEARCHABLE_KINDS = new Set(["user_message", "assistant_message"]);
const BULK_FTS_HASH_BYTES = 64 * 1024 * 1024;
const DEFAULT_FTS_HASH_BYTES = 1024 * 1024;

/**
 * The full-text rows (item_fts, title_fts) the index writer keeps beside the index. During a bulk
 * rebuild they are left alone and filled in one pass at the end.
 */
export class SearchIndex {
  private deferred = false;

  constructor(
    private readonly client: Database.Database,
    private readonly statements: IndexStatements,
  ) {}

  beginBulk(): void {
    this.deferred = true;
  }

  endBulk(): void {
    this.deferred = false;
    // A larger in-memory term table for the one big insert (FTS5 flushes a segment each time it
    // fills, default 1 MiB) means fewer segments to merge; the default is put back after.
    this.client.exec(`
      DELETE FROM item_fts; DELETE FROM title_fts;
      INSERT INTO item_fts(item_fts, rank) VALUES ('hashsize', ${BULK_FTS_HASH_BYTES});
      INSERT INTO item_fts(rowid, text, conversation_id)
        SELECT rowid, text, conversation_id FROM items
        WHERE kind IN ('user_message', 'assistant_message') AND text IS NOT NULL AND text <> '';
      INSERT INTO item_fts(item_fts, rank) VALUES ('hashsize', ${DEFAULT_FTS_HASH_BYTES});
      INSERT INTO title_fts(rowid, title) SELECT rowid, title FROM conversations;
    `);
  }

  /** A newly inserted item row (its rowid) with its text. */
  addItem(rowid: number | bigint, conversationId: string, kind: string, text: string | null | undefined): void {
    if (!this.deferred && SEARCHABLE_KINDS.has(kind) && text) {
      this.statements.insertItemSearch.run({ rowid, text, conversationId });
    }
  }

  itemText(itemId: string): void {
    if (this.deferred) return;
    const row = this.statements.itemForSearch.get(itemId) as
      | { rowid: number; kind: string; text: string | null; conversation_id: string }
      | undefined;
    if (!row || !SEARCHABLE_KINDS.has(row.kind)) return;
    this.statements.deleteOneItemSearch.run(row.rowid);
    // Text that became empty leaves no row, as a rebuild (endBulk) would leave none.
    if (row.text) this.statements.insertItemSearch.run({ rowid: row.rowid, text: row.text, conversationId: row.conversation_id });
  }

  title(conversationId: string): void {
    if (this.deferred) return;
    const row = this.statements.conversationRow.get(conversationId) as { rowid: number; title: string } | undefined;
    if (!row) return;
    this.statements.deleteOneTitleSearch.run(row.rowid);
    this.statements.insertTitleSearch.run({ rowid: row.rowid, title: row.title });
  }
}
