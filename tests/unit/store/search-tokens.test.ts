import { describe, expect, it } from "vitest";
import { postgresSearch } from "@/lib/store/postgres/postgres-search";
import { LEXEME_LIMIT, searchColumns, searchTokens } from "@/lib/store/postgres/search-tokens";

/*
 * The cluster's full-text rows (lib/store/postgres/search-tokens.ts): the edges a corpus of
 * ordinary messages never reaches — a message whose distinct words overflow a tsvector, a word
 * longer than a lexeme may be in multibyte characters, and a batch large enough that the
 * tokenizer's database is dropped after it.
 */
describe("search columns", () => {
  it("mark a row incomplete when its distinct words would overflow the tsvector, keeping every token in the stream", () => {
    const words = Array.from({ length: 150_000 }, (_, at) => `word${at.toString(36)}x`);
    const [columns] = searchColumns([words.join(" ")]);
    expect(columns!.complete).toBe(false);
    expect(columns!.tokens.split(" ")).toHaveLength(words.length);
    // The lexemes the vector holds stay under PostgreSQL's 1 MiB of them (the literal's quotes and spaces are not stored).
    const kept = columns!.vector.split(" ").map((quoted) => quoted.slice(1, -1));
    expect(kept.length).toBeGreaterThan(50_000);
    expect(kept.reduce((bytes, lexeme) => bytes + Buffer.byteLength(lexeme), 0)).toBeLessThan(1024 * 1024);
    const [small] = searchColumns(["a few words"]);
    expect(small).toEqual({ tokens: "a few words", vector: "'a' 'few' 'words'", complete: true });
  });

  it("cut a long word of multibyte characters to the lexeme limit in code points, and search it by prefix and by its whole form", () => {
    const word = "東".repeat(300);
    const [columns] = searchColumns([`before ${word} after`]);
    expect(columns!.tokens).toBe(`before ${word} after`);
    const lexemes = columns!.vector.split(" ").map((quoted) => quoted.slice(1, -1));
    expect(lexemes).toContain("東".repeat(LEXEME_LIMIT));
    expect(lexemes.every((lexeme) => [...lexeme].length <= LEXEME_LIMIT)).toBe(true);
    // The cut lexeme is a prefix term, and the whole word is checked in the token stream.
    const search = postgresSearch(word)!;
    expect(search.query).toBe(`'${"東".repeat(LEXEME_LIMIT)}':*`);
    expect(search.phrases).toEqual([` ${word}`]);
  });

  it("tokenize as before after a batch large enough to drop the tokenizer's database", () => {
    const large = "alpha beta ".repeat(400_000);
    expect(searchTokens([large])[0]).toHaveLength(800_000);
    expect(searchTokens(["Émile's café", "user_id"])).toEqual([["emile", "s", "cafe"], ["user", "id"]]);
  });
});
