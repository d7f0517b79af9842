import path from "node:path";

/** Absolute, normalized, without duplicates; relative entries are dropped (a root must name one place). */
export function normalizeRoots(roots: readonly string[]): string[] {
  const normalized = roots.filter((root) => path.posix.isAbsolute(root)).map((root) => stripTrailingSlash(path.posix.normalize(root)));
  return [...new Set(normalized)];
}

/** `inner` is `outer` or beneath it, by the path's text (both absolute and normalized). */
export function isWithinLexically(inner: string, outer: string): boolean {
  const relative = path.posix.relative(outer, inner);
  return relative === "" || (!relative.startsWith("..") && !path.posix.isAbsolute(relative));
}

function stripTrailingSlash(root: string): string {
  return root.length > 1 && root.endsWith("/") ? root.slice(0, -1) : root;
}
