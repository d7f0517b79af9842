import path from "node:path";
import { parseArgs } from "node:util";
import { importConversations, type ImportedConversation } from "../store/export-import";
import { catchUpIndex } from "../store/ingest";
import { acquireLock } from "../store/lock";
import { dataPaths } from "../store/paths";
import { Store } from "../store/store";
import { ensureHome, onePositional, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/** `atrium import <file|dir> [--new-id]`: holds the lock, as the files and the index change. */
export async function runImport(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { "new-id": { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  const source = path.resolve(context.cwd, onePositional(positionals, "file|dir"));
  ensureHome(context);
  // The lock comes before the index is opened: a running server owns both.
  const lock = acquireLock(dataPaths(context.home).lock, {}, context.warn);
  try {
    const store = new Store(context.home, { log: context.warn });
    try {
      // The clash checks read the index, so first bring it up to the files (as the server does at start).
      catchUpIndex(store);
      const result = await importConversations(store, source, { newId: values["new-id"] ?? false });
      for (const conversation of result.conversations) context.print(describe(conversation));
      return EXIT_DONE;
    } finally {
      await store.close();
    }
  } finally {
    lock.release();
  }
}

function describe(conversation: ImportedConversation): string {
  const name = `${conversation.conversationId} "${conversation.title}"`;
  const note = conversation.note ? `; ${conversation.note}` : "";
  switch (conversation.status) {
    case "added":
      return `Imported ${name} (${conversation.records} records${note})`;
    case "replaced":
      return `Updated ${name} from the newer copy (${conversation.records} records${note})`;
    case "unchanged":
      return `Unchanged ${name}${note}`;
  }
}
