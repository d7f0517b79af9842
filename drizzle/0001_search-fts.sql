-- Full-text search; drizzle has no FTS5 table type. Rowids mirror the implicit rowids of
-- `items` and `conversations`, so an update replaces one row without scanning.
CREATE VIRTUAL TABLE `item_fts` USING fts5(`text`, `conversation_id` UNINDEXED, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
--> statement-breakpoint
CREATE VIRTUAL TABLE `title_fts` USING fts5(`title`, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
