import fs from "node:fs";
import path from "node:path";
import { isId } from "../ids";
import type { DataPaths } from "../paths";
import { metadataRecordSchema, sessionRecordSchema } from "../records";

const METADATA = "metadata";

/** One stream of a conversation as its file holds it: each line's JSON exactly as written, seq 1…n. */
export interface SourceStream {
  stream: string;
  records: Array<Record<string, unknown>>;
}

/** A file of the conversation directory, with the place it takes in the cluster's BlobStore. */
export interface SourceFile {
  /** "artifacts/<id>" or "attachments/<id>-<name>", as in the conversation directory. */
  path: string;
  absolute: string;
  mediaType: string;
}

export type SourceConversation =
  | { status: "ready"; conversationId: string; title: string; streams: SourceStream[]; files: SourceFile[] }
  | { status: "skipped"; conversationId: string; reason: string }
  | { status: "refused"; conversationId: string; reason: string };

/** Not a record at all: the conversation cannot be copied line for line. */
class SourceError extends Error {}

/**
 * A conversation directory read for `atrium migrate` (DESIGN §10c): every stream's lines as they
 * are (checked against the record schemas, but copied as written), and its artifacts and
 * attachments. A torn last line (a crash mid-write) is left out, as every reader of the files
 * does; a bad line elsewhere or a gap in the seqs refuses the conversation, since the cluster
 * numbers records 1…n without gaps. A deleted conversation (tombstone) or a directory without its
 * `conversation.created` (a staging leftover) is skipped.
 */
export function readSourceConversation(paths: DataPaths, conversationId: string): SourceConversation {
  const directory = paths.conversation(conversationId);
  try {
    const metadata = readStream(path.join(directory, "metadata.jsonl"), METADATA, (json) => metadataRecordSchema.safeParse(json).success);
    const created = metadata.records[0];
    if (created?.type !== "conversation.created") return { status: "skipped", conversationId, reason: "it has no conversation.created record" };
    if (metadata.records.some((record) => record.type === "conversation.deleted")) return { status: "skipped", conversationId, reason: "it was deleted" };
    const streams = [metadata];
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const sessionId = entry.name.endsWith(".jsonl") ? entry.name.slice(0, -".jsonl".length) : "";
      if (!entry.isFile() || !isId(sessionId)) continue;
      streams.push(readStream(path.join(directory, entry.name), sessionId, (json) => sessionRecordSchema.safeParse(json).success));
    }
    return { status: "ready", conversationId, title: titleOf(metadata.records), streams, files: sourceFiles(directory, streams) };
  } catch (error) {
    if (error instanceof SourceError) return { status: "refused", conversationId, reason: error.message };
    throw error;
  }
}

function readStream(file: string, stream: string, valid: (json: unknown) => boolean): SourceStream {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { stream, records: [] };
    throw error;
  }
  const lines = text.split("\n");
  // The part after the last newline is empty, or a line torn by a crash: never a record.
  lines.pop();
  const records: Array<Record<string, unknown>> = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `line ${index + 1} of ${path.basename(file)}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new SourceError(`${where} is not valid JSON`);
    }
    if (!valid(json)) throw new SourceError(`${where} is not a valid record`);
    const record = json as Record<string, unknown>;
    if (record.seq !== records.length + 1) throw new SourceError(`${where} has seq ${String(record.seq)} where ${records.length + 1} was expected`);
    records.push(record);
  });
  return { stream, records };
}

function titleOf(metadata: Array<Record<string, unknown>>): string {
  let title = "";
  for (const record of metadata) {
    if ((record.type === "conversation.created" || record.type === "conversation.updated") && typeof record.title === "string") title = record.title;
  }
  return title;
}

/** Artifacts and attachments: regular files only (a symbolic link in a copied directory is never followed). */
function sourceFiles(directory: string, streams: SourceStream[]): SourceFile[] {
  const mediaTypes = attachmentMediaTypes(streams);
  const files: SourceFile[] = [];
  for (const folder of ["artifacts", "attachments"]) {
    const absoluteFolder = path.join(directory, folder);
    if (!fs.existsSync(absoluteFolder)) continue;
    for (const entry of fs.readdirSync(absoluteFolder, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const mediaType = folder === "artifacts" ? "text/plain; charset=utf-8" : (mediaTypes.get(entry.name.split("-")[0]!) ?? "application/octet-stream");
      files.push({ path: `${folder}/${entry.name}`, absolute: path.join(absoluteFolder, entry.name), mediaType });
    }
  }
  return files;
}

/** Attachment id → its media type, from the messages that carry it. */
function attachmentMediaTypes(streams: SourceStream[]): Map<string, string> {
  const types = new Map<string, string>();
  for (const { records } of streams) {
    for (const record of records) {
      const item = record.item as { attachments?: Array<{ id: string; mediaType: string }> } | undefined;
      for (const attachment of item?.attachments ?? []) types.set(attachment.id, attachment.mediaType);
    }
  }
  return types;
}
