/**
 * What "a match" is for find in a conversation, shared by the server (which counts) and the
 * browser (which marks): the words typed, in order, anywhere in the text, ignoring case and
 * accents, with any run of spaces matching any run of white space. Like a browser's own find,
 * not the word-prefix search of the sidebar, so "ello" finds "hello".
 */

const MARKS = /\p{M}/gu;
const SPACE = /\s/u;

/** A character folded for comparison: lower case, accents dropped, white space as one space. */
function foldChar(character: string): string {
  if (SPACE.test(character)) return " ";
  return character.normalize("NFD").replace(MARKS, "").toLowerCase();
}

/** The query as find compares it: folded, spaces collapsed and trimmed. Empty means nothing to find. */
export function findNeedle(query: string): string {
  let folded = "";
  for (const character of query) folded += foldChar(character);
  return folded.replace(/ +/g, " ").trim();
}

interface FoldedText {
  text: string;
  /** For each index of `text`, the index in the original string where that folded character starts. */
  origin: number[];
}

/** The text folded like the needle, white-space runs as one space, with a map back to the original. */
function foldText(text: string, withOrigin: boolean): FoldedText {
  // Plain ASCII folds by lower-casing, the common case by far (counting needs no map back).
  if (!withOrigin && /^[\x00-\x7f]*$/.test(text)) return { text: text.toLowerCase().replace(/\s+/g, " "), origin: [] };
  let folded = "";
  const origin: number[] = [];
  let index = 0;
  for (const character of text) {
    const piece = foldChar(character);
    if (piece === " " && folded.endsWith(" ")) {
      index += character.length;
      continue;
    }
    folded += piece;
    if (withOrigin) for (let count = 0; count < piece.length; count += 1) origin.push(index);
    index += character.length;
  }
  if (withOrigin) origin.push(index);
  return { text: folded, origin };
}

/** How many times the needle (from findNeedle) occurs in the text, not overlapping. */
export function countMatches(text: string, needle: string): number {
  if (needle === "" || text === "") return 0;
  const haystack = foldText(text, false).text;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** Where the needle occurs in the text, as [start, end) ranges of the original string, in order. */
export function matchRanges(text: string, needle: string): Array<[number, number]> {
  if (needle === "" || text === "") return [];
  const { text: haystack, origin } = foldText(text, true);
  const ranges: Array<[number, number]> = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    ranges.push([origin[at], origin[at + needle.length]]);
  }
  return ranges;
}
