import fs from "node:fs";
import { ingestConversation } from "./ingest";
import { dataPaths } from "./paths";
import { Store, type StoreOptions } from "./store";

const BATCH = 500;

export interface ReindexReport {
  conversations: number;
  records: number;
  deleted: string[];
  skipped: Array<{ conversationId: string; reason: string }>;
  problems: Array<{ conversationId: string; problem: string }>;
  milliseconds: number;
}

/**
 * Rebuilds metadata.db from the JSONL files alone. The caller holds runtime.lock.
 * `onProgress` is called every `progressEvery` conversations for long runs.
 */
export function reindex(
  home: string,
  options: StoreOptions & { onProgress?: (done: number, total: number) => void; progressEvery?: number } = {},
): ReindexReport {
  const started = performance.now();
  const paths = dataPaths(home);
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${paths.database}${suffix}`, { force: true });
  const store = new Store(home, options);
  const report: ReindexReport = { conversations: 0, records: 0, deleted: [], skipped: [], problems: [], milliseconds: 0 };
  try {
    const client = store.index.$client;
    // A throwaway index being rebuilt from scratch needs no journal; it is swapped back to WAL after.
    client.pragma("journal_mode = OFF");
    client.pragma("synchronous = OFF");
    store.writer.beginBulk();
    const directories = store.conversationDirectories();
    const every = options.progressEvery ?? 500;
    // Many conversations per transaction: a commit per conversation wrote the same index pages out again and again.
    for (let first = 0; first < directories.length; first += BATCH) {
      const batch = directories.slice(first, first + BATCH);
      store.writer.transaction(() => {
        batch.forEach((conversationId, offset) => {
          const outcome = ingestConversation(store, conversationId, { fresh: true });
          if (outcome.status === "indexed") {
            report.conversations += 1;
            report.records += outcome.records;
            for (const problem of outcome.problems) report.problems.push({ conversationId, problem });
          } else if (outcome.status === "deleted") {
            report.deleted.push(conversationId);
          } else {
            report.skipped.push({ conversationId, reason: outcome.reason });
          }
          const done = first + offset + 1;
          if (done % every === 0) options.onProgress?.(done, directories.length);
        });
      });
    }
    store.writer.endBulk();
    client.pragma("journal_mode = WAL");
    client.pragma("synchronous = NORMAL");
  } finally {
    store.index.$client.close();
  }
  report.milliseconds = Math.round(performance.now() - started);
  return report;
}
