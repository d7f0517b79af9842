import fs from "node:fs";
import type { IndexDatabase } from "./database";
import type { IndexWriter } from "./index-writer";
import type { JsonlReadResult } from "./jsonl-reader";
import type { DataPaths } from "./paths";
import type { MetadataRecord, SessionRecord } from "./records";

/** The parts of the Store ingest uses: named here so the Store can catch its own index up without an import circle. */
export interface IngestStore {
  readonly paths: DataPaths;
  readonly index: IndexDatabase;
  readonly writer: IndexWriter;
  readMetadata(conversationId: string): JsonlReadResult<MetadataRecord>;
  readSession(conversationId: string, sessionId: string): JsonlReadResult<SessionRecord>;
  sessionFiles(conversationId: string): string[];
  conversationDirectories(): string[];
}

export type IngestOutcome =
  | { status: "indexed"; conversationId: string; records: number; problems: string[] }
  | { status: "deleted"; conversationId: string }
  | { status: "skipped"; conversationId: string; reason: string };

/**
 * Replays one conversation's files into the index, replacing whatever rows it had.
 * A directory with a tombstone is an interrupted deletion: it is finished here.
 * `fresh`: the index holds nothing of this conversation yet (a rebuild), so there is nothing to remove.
 */
export function ingestConversation(store: IngestStore, conversationId: string, options: { fresh?: boolean } = {}): IngestOutcome {
  const metadata = store.readMetadata(conversationId);
  const problems: string[] = [];
  if (metadata.torn) problems.push(`metadata.jsonl line ${metadata.torn.line}: ${metadata.torn.reason}`);
  for (const invalid of metadata.invalid) problems.push(`metadata.jsonl line ${invalid.line}: ${invalid.reason}`);
  const records = metadata.records;
  if (records.some(({ record }) => record.type === "conversation.deleted")) {
    store.writer.transaction(() => store.writer.removeConversation(conversationId));
    fs.rmSync(store.paths.conversation(conversationId), { recursive: true, force: true });
    return { status: "deleted", conversationId };
  }
  const created = records[0]?.record;
  if (!created || created.type !== "conversation.created") {
    const reason = records.length === 0 ? "metadata.jsonl is missing or empty" : "metadata.jsonl does not begin with conversation.created";
    return { status: "skipped", conversationId, reason };
  }
  let count = records.length;
  const writer = store.writer;
  writer.transaction(() => {
    if (!options.fresh) writer.removeConversation(conversationId);
    writer.replay(conversationId, () => {
      for (const { record, endOffset } of records) writer.applyMetadata(conversationId, record, endOffset);
      for (const sessionId of store.sessionFiles(conversationId)) {
        const session = store.readSession(conversationId, sessionId);
        if (session.torn) problems.push(`${sessionId}.jsonl line ${session.torn.line}: ${session.torn.reason}`);
        for (const invalid of session.invalid) problems.push(`${sessionId}.jsonl line ${invalid.line}: ${invalid.reason}`);
        for (const { record, endOffset } of session.records) writer.applySession(conversationId, sessionId, record, endOffset);
        count += session.records.length;
      }
    });
  });
  return { status: "indexed", conversationId, records: count, problems };
}

/**
 * Compares each conversation's files with what the index last saw (file sizes) and
 * re-ingests the ones that ran ahead, e.g. after a crash between append and index update.
 */
export function catchUpIndex(store: IngestStore): IngestOutcome[] {
  const client = store.index.$client;
  const known = new Map(
    (client.prepare(`SELECT id, metadata_bytes FROM conversations`).all() as Array<{ id: string; metadata_bytes: number }>).map(
      (row) => [row.id, row.metadata_bytes],
    ),
  );
  const sessionBytes = new Map(
    (client.prepare(`SELECT id, file_bytes FROM sessions`).all() as Array<{ id: string; file_bytes: number }>).map(
      (row) => [row.id, row.file_bytes],
    ),
  );
  const outcomes: IngestOutcome[] = [];
  const onDisk = new Set(store.conversationDirectories());
  for (const conversationId of onDisk) {
    if (!isBehind(store, conversationId, known.get(conversationId), sessionBytes)) continue;
    outcomes.push(ingestConversation(store, conversationId));
  }
  for (const conversationId of known.keys()) {
    if (!onDisk.has(conversationId)) store.writer.transaction(() => store.writer.removeConversation(conversationId));
  }
  return outcomes;
}

function isBehind(
  store: IngestStore,
  conversationId: string,
  indexedBytes: number | undefined,
  sessionBytes: Map<string, number>,
): boolean {
  if (indexedBytes === undefined) return true;
  if (sizeOf(store.paths.metadata(conversationId)) !== indexedBytes) return true;
  return store
    .sessionFiles(conversationId)
    .some((sessionId) => sizeOf(store.paths.session(conversationId, sessionId)) !== (sessionBytes.get(sessionId) ?? 0));
}

function sizeOf(filePath: string): number {
  try {
    return fs.statSync(filePath).size;
  } catch {
    return 0;
  }
}
