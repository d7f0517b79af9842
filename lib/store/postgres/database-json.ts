import pg from "pg";

/**
 * JSON as PostgreSQL's jsonb can hold it. jsonb refuses U+0000 and lone surrogates
 * ("unsupported Unicode escape sequence"), which Atrium's records may carry: a message as typed,
 * a tool's output. In the database each such `\uXXXX` escape is written as U+FFFF and its four hex
 * digits, and a U+FFFF as two; reading undoes it. Every jsonb value is written through
 * `databaseJson` and read through a pool made with `DATABASE_TYPES`, so the two always pair.
 */
const ESCAPE = "\uffff";
const UNSTORABLE = /\uffff|\\(?:u(?:0000|d[89a-f][0-9a-f]{2})|[^])/g;
/** An escape as written in the database, in either form: U+FFFF then U+FFFF or four hex digits. */
const ESCAPED = /\uffff(\uffff|[0-9a-f]{4})/g;

/** `JSON.stringify(value)` in the form jsonb takes. */
export function databaseJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes("\\u") && !text.includes(ESCAPE)) return text;
  return text.replace(UNSTORABLE, (match) => (match === ESCAPE ? ESCAPE + ESCAPE : match.length === 6 ? ESCAPE + match.slice(2) : match));
}

/** A jsonb (or json) value as PostgreSQL prints it, parsed back to what `databaseJson` was given. */
export function parseDatabaseJson(text: string): unknown {
  if (!text.includes(ESCAPE)) return JSON.parse(text);
  return JSON.parse(text.replace(ESCAPED, (_match, next: string) => (next === ESCAPE ? ESCAPE : `\\u${next}`)));
}

const UNSTORABLE_TEXT = /[\u0000\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A string for a text column or parameter, escaped as `databaseJson` escapes it inside jsonb, so
 * it also compares equal to a jsonb string read with `->>` (a requestKey holding NUL, say).
 */
export function databaseText(text: string): string {
  return text.replace(UNSTORABLE_TEXT, (char) => (char === ESCAPE ? ESCAPE + ESCAPE : ESCAPE + char.charCodeAt(0).toString(16).padStart(4, "0")));
}

/** A text column's value back as it was before `databaseText`. */
export function parseDatabaseText(text: string): string {
  if (!text.includes(ESCAPE)) return text;
  return text.replace(ESCAPED, (_match, next: string) => (next === ESCAPE ? ESCAPE : String.fromCharCode(Number.parseInt(next, 16))));
}

const JSON_TYPES = new Set<number>([pg.types.builtins.JSON, pg.types.builtins.JSONB]);

/**
 * The `types` of every pool (databasePool) and client of the cluster's database: json and jsonb
 * read through parseDatabaseJson. drizzle's node-postgres session sets its own per query, so a json column read
 * through drizzle would need a customType doing the same (the index tables have none).
 */
export const DATABASE_TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    JSON_TYPES.has(oid) && format !== "binary" ? parseDatabaseJson : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/**
 * A pool on the cluster's database, reading json through DATABASE_TYPES. An idle connection the
 * server drops must not end the process (`onError` hears it); the next query dials again.
 */
export function databasePool(connectionString: string, max: number, onError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types: DATABASE_TYPES });
  pool.on("error", onError);
  return pool;
}
