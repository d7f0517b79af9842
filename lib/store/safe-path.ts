import path from "node:path";
import { badRequest } from "../errors";

/** The longest file name Linux and macOS file systems take, in bytes (NAME_MAX). */
export const MAX_FILE_NAME_BYTES = 255;
/** Past this an extension is not worth keeping whole when a name is cut. */
const MAX_KEPT_EXTENSION_BYTES = 32;

/**
 * A name safe to put in a path: no separators, no leading dots or spaces, no trailing spaces,
 * at most `maxBytes` of UTF-8 (cut between characters, keeping a short extension). Cleaning is
 * idempotent — a cleaned name cleans to itself (DESIGN §10) — so a name stored once is found
 * under the same name every later time.
 */
export function safeFileName(name: string, maxBytes = MAX_FILE_NAME_BYTES): string {
  const base = path
    .basename(name.replace(/\\/g, "/"))
    .replace(/[^\p{L}\p{N}._ -]/gu, "_")
    .replace(/^[. ]+/, "")
    .replace(/ +$/, "");
  return fitBytes(base, maxBytes) || "file";
}

/** Cuts a cleaned name to `maxBytes`, keeping its extension when that is short. */
function fitBytes(name: string, maxBytes: number): string {
  if (byteLength(name) <= maxBytes) return name;
  const extension = path.extname(name);
  const extensionBytes = byteLength(extension);
  if (extension !== "" && extensionBytes <= MAX_KEPT_EXTENSION_BYTES && extensionBytes < maxBytes) {
    const stem = cutBytes(name.slice(0, -extension.length), maxBytes - extensionBytes).replace(/ +$/, "");
    if (stem !== "") return stem + extension;
  }
  return cutBytes(name, maxBytes).replace(/ +$/, "");
}

/** The longest prefix of whole characters (code points, never half a surrogate pair) within `maxBytes`. */
function cutBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = byteLength(character);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end);
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * The path of `name` directly inside `directory`, for names that come from records and
 * imports (DESIGN §10): anything that would land elsewhere (separators, `..`, a name that
 * changes under safeFileName) is refused rather than repaired.
 */
export function pathInside(directory: string, name: string): string {
  const root = path.resolve(directory);
  const target = path.resolve(root, name);
  if (name !== safeFileName(name) || path.dirname(target) !== root) throw badRequest(`"${name}" is not a safe file name`);
  return target;
}
