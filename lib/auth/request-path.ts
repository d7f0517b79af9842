export type NormalizedPath = { ok: true; pathname: string } | { ok: false; reason: string };

/**
 * The path as Next's router will see it (DESIGN §10): percent-decoded, dot segments resolved.
 * Whatever could be read two ways is refused rather than guessed: encoded or back slashes,
 * repeated slashes, `%` left after one decoding, control characters, malformed escapes,
 * and `..` that climbs above the root.
 */
export function normalizeRequestPath(rawUrl: string): NormalizedPath {
  const end = rawUrl.search(/[?#]/);
  const rawPath = end === -1 ? rawUrl : rawUrl.slice(0, end);
  if (!rawPath.startsWith("/")) return refused("the request target is not an absolute path");
  if (/%(2f|5c)/i.test(rawPath) || rawPath.includes("\\")) return refused("encoded or back slashes are not accepted in paths");
  if (rawPath.includes("//")) return refused("repeated slashes are not accepted in paths");
  const segments: string[] = [];
  const rawSegments = rawPath.slice(1).split("/");
  for (const [index, rawSegment] of rawSegments.entries()) {
    let segment: string;
    try {
      segment = decodeURIComponent(rawSegment);
    } catch {
      return refused("the path holds a malformed percent escape");
    }
    if (segment.includes("%") || /[\u0000-\u001f\u007f]/.test(segment)) return refused("the path holds characters that decode ambiguously");
    const last = index === rawSegments.length - 1;
    if (segment === ".") {
      if (last) segments.push("");
      continue;
    }
    if (segment === "..") {
      if (segments.length === 0) return refused("the path climbs above the root");
      segments.pop();
      if (last) segments.push("");
      continue;
    }
    segments.push(segment);
  }
  return { ok: true, pathname: `/${segments.join("/")}` };
}

function refused(reason: string): NormalizedPath {
  return { ok: false, reason };
}
