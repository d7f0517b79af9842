import fs from "node:fs";
import path from "node:path";

export type IdMap = ReadonlyMap<string, string>;

/**
 * Rewrites a staged conversation directory so it can live beside the copy it was taken from:
 * every string equal to an id in `ids` (the conversation's own ids) is replaced, and session
 * files are renamed. `forkedFrom` names the parent's ids, so it follows `parentIds` instead
 * (the parent's new ids when the parent was renumbered in the same import).
 */
export function renumberConversation(directory: string, ids: IdMap, parentIds: IdMap | null): void {
  rewriteJsonl(path.join(directory, "metadata.jsonl"), (record) => remapRecord(record, ids, parentIds));
  for (const name of fs.readdirSync(directory)) {
    if (!name.endsWith(".jsonl") || name === "metadata.jsonl") continue;
    const file = path.join(directory, name);
    rewriteJsonl(file, (record) => remapValue(record, ids));
    const renamed = ids.get(name.slice(0, -6));
    if (renamed) fs.renameSync(file, path.join(directory, `${renamed}.jsonl`));
  }
}

function remapRecord(record: unknown, ids: IdMap, parentIds: IdMap | null): unknown {
  if (!isObject(record)) return remapValue(record, ids);
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => {
      if (key === "forkedFrom") return [key, parentIds ? remapValue(value, parentIds) : value];
      return [key, remapValue(value, ids)];
    }),
  );
}

function remapValue(value: unknown, ids: IdMap): unknown {
  if (typeof value === "string") return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((element) => remapValue(element, ids));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, remapValue(element, ids)]));
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Rewrites every complete line through `transform`. Lines that are not JSON are kept as they
 * are (readers report them); a torn last line is dropped, as the next appender would drop it.
 */
function rewriteJsonl(file: string, transform: (record: unknown) => unknown): void {
  const buffer = fs.readFileSync(file);
  const complete = buffer.toString("utf8", 0, buffer.lastIndexOf(10) + 1);
  const lines = complete.split("\n").slice(0, -1);
  const rewritten = lines.map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return line;
    }
    return JSON.stringify(transform(parsed));
  });
  const temporary = `${file}.renumbering`;
  fs.writeFileSync(temporary, rewritten.map((line) => `${line}\n`).join(""), { mode: 0o600 });
  fs.renameSync(temporary, file);
}
