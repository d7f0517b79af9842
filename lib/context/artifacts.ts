import fs from "node:fs";
import { assertId } from "../store/ids";
import { pathInside } from "../store/safe-path";

export const ARTIFACT_PAGE_BYTES = 64 * 1024;
const PREVIEW_BYTES = 2048;

/** Writes a large tool output once under artifacts/ (DESIGN §4). */
export function writeArtifact(directory: string, artifactId: string, text: string): void {
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

/** What the model and the JSONL get instead of the full text: head, tail and how to read the rest. */
export function artifactPreview(text: string, artifactId: string): string {
  const bytes = Buffer.byteLength(text);
  const head = Buffer.from(text).subarray(0, PREVIEW_BYTES).toString("utf8").replace(/\uFFFD$/, "");
  const tail = Buffer.from(text).subarray(bytes - PREVIEW_BYTES).toString("utf8").replace(/^\uFFFD/, "");
  const pages = pageBoundaries(Buffer.from(text)).length;
  return [
    head,
    `\n[… output too long: ${bytes} bytes stored as artifact ${artifactId} (${pages} pages). Read it with read_artifact({"id":"${artifactId}","page":1}) …]\n`,
    tail,
  ].join("");
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

export interface ArtifactPage {
  artifact: { id: string; bytes: number; pages: number };
  page: number;
  text: string;
}

export function readArtifactPage(directory: string, artifactId: string, page: number): ArtifactPage | null {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(pathInside(directory, assertId(artifactId, "artifact id")));
  } catch {
    return null;
  }
  const starts = pageBoundaries(buffer);
  if (page < 1 || page > starts.length) return { artifact: { id: artifactId, bytes: buffer.length, pages: starts.length }, page, text: "" };
  const end = page < starts.length ? starts[page] : buffer.length;
  return {
    artifact: { id: artifactId, bytes: buffer.length, pages: starts.length },
    page,
    text: buffer.subarray(starts[page - 1], end).toString("utf8"),
  };
}
