import { pageBoundaries } from "../store/artifact-pages";

export {
  ARTIFACT_PAGE_BYTES,
  pageBoundaries,
  writeArtifactFile as writeArtifact,
  readArtifactFile as readArtifactPage,
  type ArtifactPage,
} from "../store/artifact-pages";

const PREVIEW_BYTES = 2048;

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
