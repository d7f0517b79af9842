import { sql } from "drizzle-orm";
import { bigint, boolean, customType, index, pgTable, uniqueIndex } from "drizzle-orm/pg-core";
import { PG_INDEX_PREFIX } from "./index-tables";

/*
 * The full-text rows of a cluster's index, PostgreSQL's item_fts and title_fts (drizzle/0001):
 * one row per user or assistant message with text, and one per conversation's title. Each holds
 * the text's FTS5 tokens (search-tokens.ts) as a stream, for the exact phrase and prefix check,
 * and as a tsvector under a GIN index, to find the candidates fast (a partial index finds the rare
 * rows whose vector is incomplete, so the planner can OR both into one bitmap scan). `position` orders them as
 * SQLite's rowids do (the item's or the conversation's row, in the order they were written), so
 * "the newest matches" are the same rows on both backends; a row written later has a larger one.
 * Tokens hold no NUL or lone surrogate (the tokenizer separates words there), so the text columns
 * need no databaseText.
 */
const tsvector = customType<{ data: string; driverData: string }>({ dataType: () => "tsvector" });
/** Text in byte order (COLLATE "C"), as the index tables' text: joins with their ids, LIKE by bytes. */
const byteText = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' });

export const itemSearch = pgTable(
  `${PG_INDEX_PREFIX}item_search`,
  {
    position: bigint("position", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    itemId: byteText("item_id").notNull(),
    conversationId: byteText("conversation_id").notNull(),
    tokens: byteText("tokens").notNull(),
    vector: tsvector("vector").notNull(),
    complete: boolean("complete").notNull().default(true),
  },
  (table) => [
    uniqueIndex(`${PG_INDEX_PREFIX}item_search_item`).on(table.itemId),
    index(`${PG_INDEX_PREFIX}item_search_conversation`).on(table.conversationId),
    index(`${PG_INDEX_PREFIX}item_search_vector`).using("gin", table.vector),
    index(`${PG_INDEX_PREFIX}item_search_incomplete`).on(table.position).where(sql`NOT ${table.complete}`),
  ],
);

export const titleSearch = pgTable(
  `${PG_INDEX_PREFIX}title_search`,
  {
    position: bigint("position", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    conversationId: byteText("conversation_id").notNull(),
    tokens: byteText("tokens").notNull(),
    vector: tsvector("vector").notNull(),
    complete: boolean("complete").notNull().default(true),
  },
  (table) => [
    uniqueIndex(`${PG_INDEX_PREFIX}title_search_conversation`).on(table.conversationId),
    index(`${PG_INDEX_PREFIX}title_search_vector`).using("gin", table.vector),
    index(`${PG_INDEX_PREFIX}title_search_incomplete`).on(table.position).where(sql`NOT ${table.complete}`),
  ],
);
