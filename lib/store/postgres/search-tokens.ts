import Database from "better-sqlite3";

/*
 * Search on PostgreSQL answers what SQLite's FTS5 answers (lib/store/conversation-search.ts), so
 * its words are cut and folded by FTS5's own tokenizer: the tables' `unicode61 remove_diacritics 2`
 * run in an in-memory SQLite on this node. Its rules (which characters separate words, case
 * folding, diacritics dropped from precomposed letters and combining marks alike, which Unicode
 * version) are then the same as the index's by construction, not by a copy of its tables.
 */
const TOKENIZER = "unicode61 remove_diacritics 2";

/**
 * The longest lexeme kept in a tsvector, in code points: PostgreSQL refuses a lexeme of 2 KiB or
 * more, and 255 code points are at most 1020 bytes. A longer token is cut there in the vector
 * (a superset filter), and its whole form is checked in `tokens`.
 */
export const LEXEME_LIMIT = 255;
/** A tsvector holds at most 1 MiB of lexemes; a row whose distinct ones do not fit is marked incomplete. */
const VECTOR_BYTES = 900_000;
/** Texts past this many characters in one call leave the tokenizer's database to be dropped (see searchTokens). */
const LARGE_BATCH_CHARACTERS = 4_000_000;

let tokenizer: { insert: Database.Statement; terms: Database.Statement; clear: Database.Statement; client: Database.Database } | undefined;

function open() {
  if (tokenizer) return tokenizer;
  const client = new Database(":memory:");
  client.exec(`CREATE VIRTUAL TABLE words USING fts5(text, tokenize = '${TOKENIZER}');
    CREATE VIRTUAL TABLE word_instances USING fts5vocab(words, instance);`);
  tokenizer = {
    client,
    insert: client.prepare("INSERT INTO words (rowid, text) VALUES (?, ?)"),
    terms: client.prepare("SELECT doc, term FROM word_instances ORDER BY doc, offset"),
    clear: client.prepare("DELETE FROM words"),
  };
  return tokenizer;
}

/** Each text's tokens in order, as item_fts and title_fts index it. */
export function searchTokens(texts: string[]): string[][] {
  const { client, insert, terms, clear } = open();
  const tokens = texts.map((): string[] => []);
  client.transaction(() => {
    texts.forEach((text, at) => insert.run(at + 1, text));
    for (const { doc, term } of terms.all() as Array<{ doc: number; term: string }>) tokens[doc - 1]!.push(term);
    clear.run();
  })();
  // FTS5 keeps the pages a large batch took after its rows are deleted (a 12 MB text left 30 MB):
  // after one, the next call starts from a new database.
  if (texts.reduce((length, text) => length + text.length, 0) > LARGE_BATCH_CHARACTERS) {
    client.close();
    tokenizer = undefined;
  }
  return tokens;
}

/** A searchable row's columns: its token stream, and the tsvector of its distinct (cut) tokens. */
export interface SearchColumns {
  /** The tokens in order, one space between, no space at either end. */
  tokens: string;
  /** A tsvector literal of the distinct tokens, each cut to LEXEME_LIMIT code points. */
  vector: string;
  /** False when the vector could not hold every lexeme: the row is then matched by `tokens` alone. */
  complete: boolean;
}

export function lexeme(token: string): string {
  const points = [...token];
  return points.length > LEXEME_LIMIT ? points.slice(0, LEXEME_LIMIT).join("") : token;
}

/** A quoted lexeme as tsvector and tsquery input read it: the quote and backslash doubled. */
export function quoted(value: string): string {
  return `'${value.replace(/['\\]/g, (char) => char + char)}'`;
}

/** The search columns of each text (an item's message text, a conversation's title). */
export function searchColumns(texts: string[]): SearchColumns[] {
  return searchTokens(texts).map((tokens) => {
    const lexemes = [...new Set(tokens.map(lexeme))];
    let bytes = 0;
    const kept: string[] = [];
    for (const value of lexemes) {
      bytes += Buffer.byteLength(value) + 1;
      if (bytes > VECTOR_BYTES) break;
      kept.push(quoted(value));
    }
    return { tokens: tokens.join(" "), vector: kept.join(" "), complete: kept.length === lexemes.length };
  });
}
