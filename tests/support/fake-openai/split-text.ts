/** Splits text into stream deltas: one per word (leading whitespace kept with its word), or `chunks` equal slices. */
export function splitIntoDeltas(text: string, chunks?: number): string[] {
  if (text.length === 0) return [];
  if (chunks === undefined) return splitByWord(text);
  const characters = Array.from(text);
  const count = Math.max(1, Math.min(Math.floor(chunks), characters.length));
  const slices: string[] = [];
  for (let index = 0; index < count; index++) {
    const start = Math.floor((index * characters.length) / count);
    const end = Math.floor(((index + 1) * characters.length) / count);
    slices.push(characters.slice(start, end).join(""));
  }
  return slices;
}

export function countWords(text: string | undefined): number {
  return text?.match(/\S+/g)?.length ?? 0;
}

function splitByWord(text: string): string[] {
  const words = text.match(/\s*\S+/g);
  if (words === null) return [text];
  const covered = words.join("").length;
  if (covered < text.length) words[words.length - 1] += text.slice(covered);
  return words;
}
