import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_TYPES, databaseJson, databaseText, parseDatabaseText } from "@/lib/store/postgres/database-json";
import { usePostgresPerFile } from "../../support/embedded-postgres";

const database = usePostgresPerFile();
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: database.postgres.url, max: 2, types: DATABASE_TYPES });
});

afterAll(async () => {
  await pool?.end();
});

/** Strings made mostly of the characters jsonb cannot hold as they are, and of the escape's own. */
const awkward = fc.array(
  fc.oneof(
    fc.constantFrom("\u0000", "\uffff", "0", "\ud800", "\udfff", "\ud83d\ude00", "\\", "\\u0000", "d800", "\u001f", "a"),
    fc.string({ unit: "binary", maxLength: 4 }),
  ),
  { maxLength: 12 },
).map((parts) => parts.join(""));

async function roundTrip(value: unknown): Promise<unknown> {
  const { rows } = await pool.query<{ value: unknown }>("SELECT $1::jsonb AS value", [databaseJson(value)]);
  return rows[0]!.value;
}

describe("JSON in jsonb", () => {
  it("plain JSON is written as JSON.stringify writes it", () => {
    const value = { type: "item.created", text: "héllo 🍎 \n\t\"quoted\"", n: [1, 2.5, null, true] };
    expect(databaseJson(value)).toBe(JSON.stringify(value));
  });

  it("jsonb refuses NUL and lone surrogates as JSON.stringify writes them (what the escape is for)", async () => {
    await expect(pool.query("SELECT $1::jsonb", [JSON.stringify({ text: "a\u0000b" })])).rejects.toThrow(/unsupported Unicode escape sequence/);
    await expect(pool.query("SELECT $1::jsonb", [JSON.stringify({ text: "a\ud800b" })])).rejects.toThrow();
  });

  it("any string, NUL, lone surrogates and U+FFFF included, in keys and values, reads back exactly", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(awkward, fc.oneof(awkward, fc.array(awkward, { maxLength: 3 }))), async (value) => {
        expect(await roundTrip(value)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it("a string escaped for a text column equals the same string inside jsonb read with ->> (so a key holding NUL is found)", async () => {
    await fc.assert(
      fc.asyncProperty(awkward, async (text) => {
        const { rows } = await pool.query<{ same: boolean }>("SELECT ($1::jsonb ->> 'key') = $2 AS same", [databaseJson({ key: text }), databaseText(text)]);
        expect(rows[0]!.same).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("any string stored in a text column through databaseText reads back exactly through parseDatabaseText", async () => {
    await fc.assert(
      fc.asyncProperty(awkward, async (text) => {
        const { rows } = await pool.query<{ value: string }>("SELECT $1::text AS value", [databaseText(text)]);
        expect(parseDatabaseText(rows[0]!.value)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
