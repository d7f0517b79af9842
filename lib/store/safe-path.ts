import path from "node:path";
import { badRequest } from "../errors";

/** A name safe to put in a path: no separators, no leading dots, bounded length. */
export function safeFileName(name: string): string {
  const base = path.basename(name.replace(/\\/g, "/")).replace(/[^\p{L}\p{N}._ -]/gu, "_").replace(/^\.+/, "").trim();
  return (base || "file").slice(0, 120);
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
