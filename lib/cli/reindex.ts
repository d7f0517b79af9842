import { parseArgs } from "node:util";
import { acquireLock } from "../store/lock";
import { dataPaths } from "../store/paths";
import { reindex } from "../store/reindex";
import { ensureHome, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/** `atrium reindex`: rebuilds metadata.db from the JSONL files, holding the data directory's lock. */
export function runReindex(args: string[], context: CliContext): number {
  parseArgs({ args, options: {}, allowPositionals: false, strict: true });
  ensureHome(context);
  const lock = acquireLock(dataPaths(context.home).lock, {}, context.warn);
  try {
    const report = reindex(context.home, {
      log: context.warn,
      onProgress: (done, total) => context.print(`Indexed ${done} of ${total} conversations…`),
    });
    for (const { conversationId, reason } of report.skipped) context.print(`Skipped ${conversationId}: ${reason}`);
    for (const { conversationId, problem } of report.problems) context.print(`Problem in ${conversationId}: ${problem}`);
    for (const conversationId of report.deleted) context.print(`Finished the interrupted deletion of ${conversationId}`);
    context.print(
      `Reindexed ${plural(report.conversations, "conversation")} (${plural(report.records, "record")}) ` +
        `in ${report.milliseconds} ms; skipped ${report.skipped.length}; ` +
        `finished ${plural(report.deleted.length, "interrupted deletion")}.`,
    );
    return EXIT_DONE;
  } finally {
    lock.release();
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
