import { SEARCHABLE_KINDS } from "../search-index";
import type { TableChanges } from "./index-row-capture";
import { PG_INDEX_PREFIX } from "./index-tables";
import { searchColumns } from "./search-tokens";


const ITEM_SEARCH = `${PG_INDEX_PREFIX}item_search`;
const TITLE_SEARCH = `${PG_INDEX_PREFIX}title_search`;

/** The full-text rows (search-tables.ts) that follow a batch of index changes. */
export interface SearchChanges {
  items: Array<{ item_id: string; conversation_id: string; tokens: string; vector: string; complete: boolean }>;
  itemsGone: string[];
  titles: Array<{ conversation_id: string; tokens: string; vector: string; complete: boolean }>;
  titlesGone: string[];
}

/**
 * What SearchIndex did to item_fts and title_fts for these index changes, as PostgreSQL's search
 * rows: a user or assistant message with text has its row (its tokens again), one whose text is
 * empty or that is gone has none; every conversation row changed has its title's row, a gone
 * conversation none. A new row takes the next position (the order SQLite's rowids follow); a
 * changed one keeps its own.
 */
export function searchChanges(changes: TableChanges[]): SearchChanges {
  const items = changes.find((change) => change.table === "items");
  const conversations = changes.find((change) => change.table === "conversations");
  const searchable = (items?.rows ?? []).filter((row) => SEARCHABLE_KINDS.has(String(row.kind)));
  const withText = searchable.filter((row) => typeof row.text === "string" && row.text !== "");
  const hasText = new Set(withText);
  const titleRows = conversations?.rows ?? [];
  // One pass of the tokenizer for both.
  const texts = [...withText.map((row) => String(row.text)), ...titleRows.map((row) => String(row.title))];
  const columns = texts.length > 0 ? searchColumns(texts) : [];
  const itemColumns = columns.slice(0, withText.length);
  const titleColumns = columns.slice(withText.length);
  return {
    items: withText.map((row, at) => ({ item_id: String(row.id), conversation_id: String(row.conversation_id), ...itemColumns[at]! })),
    itemsGone: [...(items?.gone ?? []).map((key) => String(key.id)), ...searchable.filter((row) => !hasText.has(row)).map((row) => String(row.id))],
    titles: titleRows.map((row, at) => ({ conversation_id: String(row.id), ...titleColumns[at]! })),
    titlesGone: (conversations?.gone ?? []).map((key) => String(key.id)),
  };
}

/** The shape of a batch's search changes, for its statement's name. */
export function searchShape(search: SearchChanges): string {
  return (Object.keys(search) as Array<keyof SearchChanges>).filter((key) => search[key].length > 0).join(",");
}

/**
 * The statement's parts writing them, reading `parameter` (plain JSON: tokens hold no NUL or lone
 * surrogate, and U+FFFF must reach the columns as it is). A row whose tokens did not change is not
 * written again (a message's status, a conversation's updatedAt).
 */
export function searchParts(search: SearchChanges, parameter: string): string[] {
  const parts: string[] = [];
  const from = (key: keyof SearchChanges) => `${parameter}::jsonb -> '${key}'`;
  const columns = "tokens text, vector text, complete boolean";
  const update = (table: string) => `DO UPDATE SET tokens = EXCLUDED.tokens, vector = EXCLUDED.vector, complete = EXCLUDED.complete WHERE ${table}.tokens IS DISTINCT FROM EXCLUDED.tokens`;
  if (search.itemsGone.length > 0) parts.push(`search_items_gone AS (DELETE FROM ${ITEM_SEARCH} WHERE item_id IN (SELECT jsonb_array_elements_text(${from("itemsGone")})))`);
  if (search.items.length > 0) {
    parts.push(`search_items AS (INSERT INTO ${ITEM_SEARCH} (item_id, conversation_id, tokens, vector, complete)
      SELECT item_id, conversation_id, tokens, vector::tsvector, complete FROM jsonb_to_recordset(${from("items")}) AS r(item_id text, conversation_id text, ${columns})
      ON CONFLICT (item_id) ${update(ITEM_SEARCH)})`);
  }
  if (search.titlesGone.length > 0) parts.push(`search_titles_gone AS (DELETE FROM ${TITLE_SEARCH} WHERE conversation_id IN (SELECT jsonb_array_elements_text(${from("titlesGone")})))`);
  if (search.titles.length > 0) {
    parts.push(`search_titles AS (INSERT INTO ${TITLE_SEARCH} (conversation_id, tokens, vector, complete)
      SELECT conversation_id, tokens, vector::tsvector, complete FROM jsonb_to_recordset(${from("titles")}) AS r(conversation_id text, ${columns})
      ON CONFLICT (conversation_id) ${update(TITLE_SEARCH)})`);
  }
  return parts;
}

/** A conversation's search rows removed (before its whole rows are written again). */
export const DELETE_CONVERSATION_SEARCH = [`DELETE FROM ${ITEM_SEARCH} WHERE conversation_id = $1`, `DELETE FROM ${TITLE_SEARCH} WHERE conversation_id = $1`];
