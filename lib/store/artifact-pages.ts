import fs from "node:fs";
import { assertId } from "./ids";
import { pathInside } from "./safe-path";

export const ARTIFACT_PAGE_BYTES = 64 * 1024;

export interface ArtifactPage {
  artifact: { id: string; bytes: number; pages: number };
  page: number;
  text: string;
}

/** Page start offsets: 64 KiB pages cut after a newline where one exists. */
export function pageBoundaries(buffer: Buffer): number[] {
  const starts: number[] = [];
  let start = 0;
  while (start < buffer.length || starts.length === 0) {
    starts.push(start);
    if (buffer.length - start <= ARTIFACT_PAGE_BYTES) break;
    const limit = start + ARTIFACT_PAGE_BYTES;
    const newline = buffer.lastIndexOf(10, limit - 1);
    start = newline >= start ? newline + 1 : limit;
  }
  return starts;
}

/** One page of an artifact's bytes (DESIGN §8: pages start at 1); a page past the last has empty text. */
export function artifactPageOf(buffer: Buffer, artifactId: string, page: number): ArtifactPage {
  const starts = pageBoundaries(buffer);
  if (page < 1 || page > starts.length) return { artifact: { id: artifactId, bytes: buffer.length, pages: starts.length }, page, text: "" };
  const end = page < starts.length ? starts[page] : buffer.length;
  return {
    artifact: { id: artifactId, bytes: buffer.length, pages: starts.length },
    page,
    text: buffer.subarray(starts[page - 1], end).toString("utf8"),
  };
}

/** Writes a large tool output once under artifacts/ (DESIGN §4): flushed under a temporary name, then renamed. */
export function writeArtifactFile(directory: string, artifactId: string, text: string): void {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const target = pathInside(directory, assertId(artifactId, "artifact id"));
  const temporary = `${target}.tmp`;
  const handle = fs.openSync(temporary, "w", 0o600);
  try {
    fs.writeSync(handle, text);
    fs.fdatasyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  fs.renameSync(temporary, target);
}

export function readArtifactFile(directory: string, artifactId: string, page: number): ArtifactPage | null {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(pathInside(directory, assertId(artifactId, "artifact id")));
  } catch {
    return null;
  }
  return artifactPageOf(buffer, artifactId, page);
}
