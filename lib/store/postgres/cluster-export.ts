import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Pool } from "pg";
import { notFound } from "../../errors";
import { exportConversation, type ExportOptions, type ExportResult } from "../export-import";
import { dataPaths, type DataPaths } from "../paths";
import { pathInside } from "../safe-path";
import { BlobStore } from "./blob-store";
import { lineOrder } from "./postgres-record-store";

const METADATA = "metadata";

/**
 * `atrium export` on a cluster node (DESIGN §10c): the same bundle as from files. Each
 * conversation (and with `withAncestors` its parents) is written out of the database as the
 * directory the files backend would hold — a JSONL line per record in seq order, its artifacts and
 * attachments beside — in a staging folder, which the files backend's export then bundles.
 * A line's keys come in the database's order; import compares records, not bytes, so the bundle
 * imports anywhere as the files' own would.
 */
export async function exportFromCluster(pool: Pool, conversationId: string, options: ExportOptions): Promise<ExportResult> {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cluster-export-"));
  try {
    const paths = dataPaths(staging);
    const blobs = new BlobStore(pool);
    let parentId = await writeConversation(pool, blobs, paths, conversationId);
    if (parentId === undefined) throw notFound("Conversation", conversationId);
    const written = new Set([conversationId]);
    while (options.withAncestors && parentId && !written.has(parentId)) {
      written.add(parentId);
      parentId = await writeConversation(pool, blobs, paths, parentId);
    }
    return await exportConversation(staging, conversationId, options);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * One conversation's directory written from the database; answers the parent its forkedFrom names
 * (null when none), or undefined when the cluster has no such conversation (absent or deleted).
 */
async function writeConversation(pool: Pool, blobs: BlobStore, paths: DataPaths, conversationId: string): Promise<string | null | undefined> {
  const rows = await pool.query<{ stream: string; record: Record<string, unknown> }>(
    "SELECT stream, record FROM atrium_records WHERE conversation_id = $1 ORDER BY stream, seq",
    [conversationId],
  );
  const streams = new Map<string, string[]>();
  let created: Record<string, unknown> | null = null;
  for (const { stream, record } of rows.rows) {
    if (record.type === "conversation.deleted") return undefined;
    if (stream === METADATA && record.seq === 1 && record.type === "conversation.created") created = record;
    const lines = streams.get(stream) ?? [];
    lines.push(`${JSON.stringify(lineOrder(record))}\n`);
    streams.set(stream, lines);
  }
  if (!created) return undefined;
  const directory = paths.conversation(conversationId);
  fs.mkdirSync(directory, { recursive: true });
  for (const [stream, lines] of streams) {
    fs.writeFileSync(stream === METADATA ? paths.metadata(conversationId) : paths.session(conversationId, stream), lines.join(""));
  }
  for (const head of await blobs.list(conversationId)) {
    const [folder, name, ...rest] = head.path.split("/");
    // Only the two folders a conversation directory has, one file name deep: never a path out of the staging folder.
    if ((folder !== "artifacts" && folder !== "attachments") || !name || rest.length > 0) continue;
    const target = folder === "artifacts" ? paths.artifacts(conversationId) : paths.attachments(conversationId);
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(pathInside(target, name), (await blobs.read(conversationId, head.path))!);
  }
  const forkedFrom = created.forkedFrom as { conversationId?: string } | null | undefined;
  return forkedFrom?.conversationId ?? null;
}
