import fs from "node:fs";
import { metadataRecordSchema, type MetadataRecord } from "./records";

type CreatedRecord = Extract<MetadataRecord, { type: "conversation.created" }>;

export type ConversationHead =
  | { ok: true; line: string; record: CreatedRecord }
  | { ok: false; reason: string };

/**
 * Reads the first line of a metadata.jsonl, which must be the conversation.created record.
 * The raw line is kept: two copies of one conversation share exactly this line.
 */
export function readConversationHead(metadataPath: string): ConversationHead {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(metadataPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: false, reason: "metadata.jsonl is missing" };
    throw error;
  }
  const newline = buffer.indexOf(10);
  if (newline === -1) return { ok: false, reason: "metadata.jsonl has no complete first line" };
  const line = buffer.toString("utf8", 0, newline);
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, reason: "the first line of metadata.jsonl is not valid JSON" };
  }
  const parsed = metadataRecordSchema.safeParse(json);
  if (!parsed.success || parsed.data.type !== "conversation.created") {
    return { ok: false, reason: "metadata.jsonl does not begin with a conversation.created record" };
  }
  return { ok: true, line, record: parsed.data };
}
